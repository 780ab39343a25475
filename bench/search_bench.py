"""Search benchmark: MRR@10 and recall@10 of keyword, semantic and hybrid search on a labelled query
set of natural-language questions about Django, the cost of embedding its symbols (cold), of a
one-file sync's re-embedding, and the latency of a hybrid query in process (median).

    python bench/search_bench.py [--corpus PATH] [--json OUT]

Needs the semantic extra (``pip install -e '.[semantic]'``). The corpus is ``--corpus``, else
``/tmp/corpus/Django-5.1``, else the Django 5.1 sdist ``bench/index_bench.py`` downloads. Each query
lists the symbols a reader would accept (any one of them counts); a query whose accepted symbols
are not in the graph is reported and left out, so the set cannot silently shrink.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from projectgraph.project import Project
from projectgraph.query import semantic
from projectgraph.query.search import search

H = "django/contrib/auth/hashers.py//"
U = "django/utils/"
DJANGO: list[tuple[str, list[str]]] = [
    ("where are passwords hashed", [H + "make_password", H + "PBKDF2PasswordHasher//encode"]),
    ("check a password against its stored hash", [H + "check_password"]),
    ("choose the password hashing algorithm", [H + "get_hasher", H + "identify_hasher"]),
    (
        "parse a multipart upload",
        [
            "django/http/multipartparser.py//MultiPartParser//parse",
            "django/http/multipartparser.py//MultiPartParser",
        ],
    ),
    (
        "send an email",
        ["django/core/mail/__init__.py//send_mail", "django/core/mail/message.py//EmailMessage//send"],
    ),
    ("email the site administrators", ["django/core/mail/__init__.py//mail_admins"]),
    ("send many emails over one connection", ["django/core/mail/__init__.py//send_mass_mail"]),
    ("turn a title into a url slug", [U + "text.py//slugify", "django/template/defaultfilters.py//slugify"]),
    ("generate a random secret string", [U + "crypto.py//get_random_string"]),
    ("compare two strings in constant time", [U + "crypto.py//constant_time_compare"]),
    ("escape html special characters", [U + "html.py//escape", U + "html.py//conditional_escape"]),
    ("remove html tags from text", [U + "html.py//strip_tags"]),
    (
        "sign a value with a secret key",
        ["django/core/signing.py//Signer//sign", "django/core/signing.py//dumps"],
    ),
    ("hmac of a value with a salt", [U + "crypto.py//salted_hmac"]),
    (
        "validate an email address",
        ["django/core/validators.py//EmailValidator//__call__", "django/core/validators.py//EmailValidator"],
    ),
    ("how long ago a date was in words", [U + "timesince.py//timesince"]),
    ("convert a naive datetime to aware", [U + "timezone.py//make_aware"]),
    ("parse an iso date string", [U + "dateparse.py//parse_date"]),
    ("parse a duration string", [U + "dateparse.py//parse_duration"]),
    ("parse an http date header", [U + "http.py//parse_http_date"]),
    ("format a date for an http header", [U + "http.py//http_date"]),
    ("build a query string from a dict", [U + "http.py//urlencode"]),
    ("is a redirect url safe", [U + "http.py//url_has_allowed_host_and_scheme"]),
    ("encode bytes as url safe base64", [U + "http.py//urlsafe_base64_encode"]),
    ("content disposition header for a download", [U + "http.py//content_disposition_header"]),
    ("set cache control headers on a response", [U + "cache.py//patch_cache_control"]),
    ("cache a view's response", ["django/views/decorators/cache.py//cache_page"]),
    ("never cache a page", ["django/views/decorators/cache.py//never_cache"]),
    ("only allow some http methods for a view", ["django/views/decorators/http.py//require_http_methods"]),
    ("exempt a view from csrf protection", ["django/views/decorators/csrf.py//csrf_exempt"]),
    ("get the csrf token for a request", ["django/middleware/csrf.py//get_token"]),
    ("require the user to be logged in", ["django/contrib/auth/decorators.py//login_required"]),
    ("log a user in", ["django/contrib/auth/__init__.py//login"]),
    ("log the user out", ["django/contrib/auth/__init__.py//logout"]),
    (
        "check a username and password",
        [
            "django/contrib/auth/__init__.py//authenticate",
            "django/contrib/auth/backends.py//ModelBackend//authenticate",
        ],
    ),
    ("validate a new password's strength", ["django/contrib/auth/password_validation.py//validate_password"]),
    ("the user model class of the project", ["django/contrib/auth/__init__.py//get_user_model"]),
    ("render a template to a string", ["django/template/loader.py//render_to_string"]),
    ("render a template into an http response", ["django/shortcuts.py//render"]),
    ("redirect to another url", ["django/shortcuts.py//redirect"]),
    ("fetch an object or raise 404", ["django/shortcuts.py//get_object_or_404"]),
    (
        "split a list of objects into pages",
        ["django/core/paginator.py//Paginator", "django/core/paginator.py//Paginator//page"],
    ),
    ("find the url of a view by name", ["django/urls/base.py//reverse"]),
    (
        "match a path to its view",
        ["django/urls/base.py//resolve", "django/urls/resolvers.py//URLResolver//resolve"],
    ),
    ("run a database block in a transaction", ["django/db/transaction.py//atomic"]),
    ("run a management command from code", ["django/core/management/__init__.py//call_command"]),
    ("serialize a queryset to json", ["django/core/serializers/__init__.py//serialize"]),
    (
        "store uploaded files on disk",
        [
            "django/core/files/storage/filesystem.py//FileSystemStorage",
            "django/core/files/storage/filesystem.py//FileSystemStorage//_save",
        ],
    ),
    (
        "serve static files in development",
        ["django/views/static.py//serve", "django/contrib/staticfiles/views.py//serve"],
    ),
    ("human readable file size", ["django/template/defaultfilters.py//filesizeformat"]),
    ("import a class from its dotted path", [U + "module_loading.py//import_string"]),
    ("translate a message", [U + "translation/__init__.py//gettext"]),
    ("gzip compress responses", ["django/middleware/gzip.py//GZipMiddleware"]),
]


def corpus(arg: str | None) -> Path:
    for candidate in (arg, "/tmp/corpus/Django-5.1", str(Path(__file__).parent / ".corpus" / "Django-5.1")):
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    sys.exit("no Django corpus: run bench/index_bench.py once (it downloads the sdist), or pass --corpus")


def scores(project: Project, queries: list[tuple[str, list[str]]], mode: str) -> dict[str, float]:
    reciprocal, recalled = [], []
    for text, accepted in queries:
        keys = [hit["key"] for hit in search(project.store.connection, text, mode, 10)["results"]]
        rank = next((i for i, key in enumerate(keys, start=1) if key in accepted), 0)
        reciprocal.append(1.0 / rank if rank else 0.0)
        recalled.append(1.0 if rank else 0.0)
    return {"mrr@10": round(statistics.mean(reciprocal), 3), "recall@10": round(statistics.mean(recalled), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus")
    parser.add_argument("--json")
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    if not semantic.model_available():
        sys.exit(f"the semantic extra is not installed: {semantic.INSTALL_HINT}")
    work = Path(tempfile.mkdtemp(prefix="search-bench-")) / "django"
    shutil.copytree(corpus(args.corpus), work)
    report: dict[str, object] = {}
    with Project(work) as project:
        project.refresh()
        keys = {k for (k,) in project.store.connection.execute("SELECT key FROM nodes")}
        kept = [(q, [a for a in accepted if a in keys]) for q, accepted in DJANGO]
        missing = [q for q, accepted in kept if not accepted]
        kept = [(q, accepted) for q, accepted in kept if accepted]
        report["queries"] = len(kept)
        report["queries_left_out"] = missing
        started = time.monotonic()
        stats = project.embed()
        report["embed_cold"] = {"symbols": stats.symbols, "seconds": round(time.monotonic() - started, 2)}
        for mode in ("keyword", "semantic", "hybrid"):
            report[mode] = scores(project, kept, mode)
        timings = []
        for i in range(args.runs):
            began = time.perf_counter()
            search(project.store.connection, DJANGO[i % len(DJANGO)][0], "hybrid", 10)
            timings.append(time.perf_counter() - began)
        report["hybrid_latency_ms_median"] = round(statistics.median(timings) * 1000, 1)
        target = work / "django" / "utils" / "text.py"
        target.write_text(
            target.read_text(encoding="utf-8") + "\n\ndef shout(value):\n    return value.upper()\n",
            encoding="utf-8",
        )
        began = time.monotonic()
        project.sync()
        report["sync_with_reembed_seconds"] = round(time.monotonic() - began, 2)
        report["reembedded_after_sync"] = project.embed().embedded
    print(json.dumps(report, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
