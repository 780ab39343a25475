"""Search benchmark: MRR@10 and recall@10 of keyword, semantic and hybrid search on two labelled
sets of natural-language questions, about Django 5.1 (Python) and RxJS 7.8.2 (TypeScript, the
``src/`` folder its npm package ships); the cost of embedding each corpus's symbols (cold, wall and
CPU seconds), of a one-file sync's re-embedding (against the same sync without the model), and the
latency of a query in process (median per mode, after the model is loaded).

    python bench/search_bench.py [--set django|rxjs|all] [--django PATH] [--rxjs PATH] [--json OUT]
        [--passes N] [--keep-vectors]

Needs the semantic extra (``pip install -e '.[semantic]'``). Django is ``--django``, else
``/tmp/corpus/Django-5.1``, else the sdist ``bench/index_bench.py`` downloads; RxJS is ``--rxjs``,
else its package fetched once with ``npm pack`` into ``bench/.corpus/``. A corpus folder that holds
an index is copied with it (no re-index), its vectors dropped: the embedding is always cold, unless
``--keep-vectors`` keeps them (the scores, latencies and syncs without the cold embedding's ten CPU
minutes on Django; the report then says the embedding was not measured). Each
question lists the symbols a reader would accept (any one of them counts), written by reading the
corpus's code; a question whose accepted symbols are not in the graph is reported and left out, so
a set cannot silently shrink. The scoring is the same for each mode: the rank of the first accepted key in the
top 10 (0 when none).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from projectgraph.project import Project
from projectgraph.query import semantic
from projectgraph.query.search import search

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".corpus"
RXJS_VERSION = "7.8.2"
MODES = ("keyword", "semantic", "hybrid")
Labelled = list[tuple[str, list[str]]]

H = "django/contrib/auth/hashers.py//"
U = "django/utils/"
DJANGO: Labelled = [
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


OP = "internal/operators/"
OBS = "internal/observable/"
RXJS: Labelled = [
    (
        "wait until the source is quiet for a while, then emit its last value",
        [OP + "debounceTime.ts//debounceTime", OP + "debounce.ts//debounce"],
    ),
    (
        "emit at most one value per time window and drop the rest",
        [OP + "throttleTime.ts//throttleTime", OP + "throttle.ts//throttle", OP + "auditTime.ts//auditTime"],
    ),
    (
        "resubscribe a few times when the source errors",
        [OP + "retry.ts//retry", OP + "retryWhen.ts//retryWhen"],
    ),
    ("recover from an error by switching to a fallback stream", [OP + "catchError.ts//catchError"]),
    ("cancel the previous inner request when a new value arrives", [OP + "switchMap.ts//switchMap"]),
    (
        "run the inner streams one after another, in order",
        [OP + "concatMap.ts//concatMap", OP + "concatAll.ts//concatAll"],
    ),
    (
        "ignore new source values while the inner stream is still running",
        [OP + "exhaustMap.ts//exhaustMap", OP + "exhaustAll.ts//exhaustAll"],
    ),
    (
        "emit the latest value of each of several streams whenever any of them emits",
        [OBS + "combineLatest.ts//combineLatest", OP + "combineLatestWith.ts//combineLatestWith"],
    ),
    (
        "wait for every stream to complete and emit their last values together",
        [OBS + "forkJoin.ts//forkJoin"],
    ),
    (
        "pair up the values of several streams by their index",
        [OBS + "zip.ts//zip", OP + "zipWith.ts//zipWith"],
    ),
    ("emit the previous and the current value as a pair", [OP + "pairwise.ts//pairwise"]),
    ("accumulate a state over the values and emit every intermediate result", [OP + "scan.ts//scan"]),
    (
        "only let a value through when it differs from the one before",
        [
            OP + "distinctUntilChanged.ts//distinctUntilChanged",
            OP + "distinctUntilKeyChanged.ts//distinctUntilKeyChanged",
        ],
    ),
    ("drop values that were already seen", [OP + "distinct.ts//distinct"]),
    ("emit only the first n values then complete", [OP + "take.ts//take"]),
    ("stop mirroring the source when a notifier emits", [OP + "takeUntil.ts//takeUntil"]),
    ("ignore the first few values", [OP + "skip.ts//skip"]),
    ("emit an initial value before the source's values", [OP + "startWith.ts//startWith"]),
    ("collect every value into one array when the source completes", [OP + "toArray.ts//toArray"]),
    ("group values into arrays of a fixed size", [OP + "bufferCount.ts//bufferCount"]),
    (
        "collect the values of each time period into an array",
        [OP + "bufferTime.ts//bufferTime", OP + "windowTime.ts//windowTime"],
    ),
    ("split the values by a key into separate streams", [OP + "groupBy.ts//groupBy"]),
    ("run a side effect for each value without changing it", [OP + "tap.ts//tap"]),
    ("run cleanup code when the stream completes, errors or is unsubscribed", [OP + "finalize.ts//finalize"]),
    (
        "fail when no value arrives within a time limit",
        [OP + "timeout.ts//timeout", OP + "timeoutWith.ts//timeoutWith"],
    ),
    ("shift every emission later in time", [OP + "delay.ts//delay", OP + "delayWhen.ts//delayWhen"]),
    ("emit an increasing number periodically", [OBS + "interval.ts//interval", OBS + "timer.ts//timer"]),
    ("emit once after a given due time", [OBS + "timer.ts//timer"]),
    (
        "listen to events of a DOM element or an event emitter",
        [OBS + "fromEvent.ts//fromEvent", OBS + "fromEventPattern.ts//fromEventPattern"],
    ),
    (
        "make an HTTP request with XMLHttpRequest",
        [
            "internal/ajax/ajax.ts//fromAjax",
            "internal/ajax/ajax.ts//AjaxCreationMethod",
            "internal/ajax/ajax.ts//ajaxGet",
        ],
    ),
    ("request a url with the Fetch API and abort it on unsubscribe", [OBS + "dom/fetch.ts//fromFetch"]),
    (
        "open a websocket connection",
        [OBS + "dom/webSocket.ts//webSocket", OBS + "dom/WebSocketSubject.ts//WebSocketSubject"],
    ),
    ("turn a promise into an observable", [OBS + "from.ts//from", OBS + "innerFrom.ts//fromPromise"]),
    ("get a promise that resolves with the first value", ["internal/firstValueFrom.ts//firstValueFrom"]),
    ("await the final value of a stream", ["internal/lastValueFrom.ts//lastValueFrom"]),
    (
        "share one subscription to the source among many subscribers",
        [OP + "share.ts//share", OP + "shareReplay.ts//shareReplay", OP + "refCount.ts//refCount"],
    ),
    (
        "replay the last values to late subscribers",
        ["internal/ReplaySubject.ts//ReplaySubject", OP + "shareReplay.ts//shareReplay"],
    ),
    ("a subject that holds a current value", ["internal/BehaviorSubject.ts//BehaviorSubject"]),
    (
        "emit only the last value to observers once the subject completes",
        ["internal/AsyncSubject.ts//AsyncSubject"],
    ),
    ("create the observable lazily at each subscription", [OBS + "defer.ts//defer"]),
    ("pick one of two observables at subscription time by a condition", [OBS + "iif.ts//iif"]),
    ("an observable that errors as soon as it is subscribed", [OBS + "throwError.ts//throwError"]),
    ("emit a sequence of consecutive integers", [OBS + "range.ts//range"]),
    (
        "produce values with a loop: an initial state, a condition and an iterate step",
        [OBS + "generate.ts//generate"],
    ),
    ("mirror whichever source emits first", [OBS + "race.ts//race", OP + "raceWith.ts//raceWith"]),
    (
        "interleave several streams into one, subscribing to all at once",
        [OBS + "merge.ts//merge", OP + "mergeWith.ts//mergeWith", OP + "mergeAll.ts//mergeAll"],
    ),
    (
        "emit a default value when the source completes without emitting",
        [OP + "defaultIfEmpty.ts//defaultIfEmpty"],
    ),
    ("check that every value satisfies a predicate", [OP + "every.ts//every"]),
    ("compare two streams value by value for equality", [OP + "sequenceEqual.ts//sequenceEqual"]),
    ("wrap next, error and complete into notification objects", [OP + "materialize.ts//materialize"]),
    (
        "test streams with marble diagrams in virtual time",
        [
            "internal/testing/TestScheduler.ts//TestScheduler",
            "internal/testing/TestScheduler.ts//TestScheduler//run",
        ],
    ),
    ("emit the latest value at a fixed period", [OP + "sampleTime.ts//sampleTime", OP + "sample.ts//sample"]),
    ("recursively project each value into more values", [OP + "expand.ts//expand"]),
    ("attach the current time to each value", [OP + "timestamp.ts//timestamp"]),
    (
        "report an error that no subscriber handled",
        [
            "internal/util/reportUnhandledError.ts//reportUnhandledError",
            "internal/Subscriber.ts//handleUnhandledError",
        ],
    ),
    (
        "release a subscription's resources and its finalizers",
        ["internal/Subscription.ts//Subscription//unsubscribe"],
    ),
]


def django_corpus(arg: str | None) -> Path:
    for candidate in (arg, "/tmp/corpus/Django-5.1", str(CACHE / "Django-5.1")):
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    sys.exit("no Django corpus: run bench/index_bench.py once (it downloads the sdist), or pass --django")


def rxjs_corpus(arg: str | None) -> Path:
    """RxJS's TypeScript sources (the package's ``src/``), fetched with ``npm pack`` on first use."""
    if arg:
        return Path(arg)
    folder = CACHE / f"rxjs-{RXJS_VERSION}"
    if not (folder / "src").is_dir():
        CACHE.mkdir(exist_ok=True)
        (CACHE / ".gitignore").write_text("*\n", encoding="utf-8")
        print(f"fetching rxjs {RXJS_VERSION} with npm pack ...", file=sys.stderr)
        subprocess.run(["npm", "pack", f"rxjs@{RXJS_VERSION}", "--silent"], cwd=CACHE, check=True)
        with tarfile.open(CACHE / f"rxjs-{RXJS_VERSION}.tgz") as archive:
            archive.extractall(folder, filter="data")
        (folder / "package" / "src").rename(folder / "src")
        shutil.rmtree(folder / "package")
    return folder / "src"


# per set: its questions, the file a sync edits and the definition appended to it
EDITS = {
    "django": ("django/utils/text.py", "\n\ndef shout(value):\n    return value.upper()\n"),
    "rxjs": (
        "internal/util/noop.ts",
        "\nexport function shout(value: string): string {\n  return value.toUpperCase();\n}\n",
    ),
}


def scores(project: Project, queries: Labelled, mode: str) -> dict[str, float]:
    reciprocal, recalled = [], []
    for text, accepted in queries:
        keys = [hit["key"] for hit in search(project.store.connection, text, mode, 10)["results"]]
        rank = next((i for i, key in enumerate(keys, start=1) if key in accepted), 0)
        reciprocal.append(1.0 / rank if rank else 0.0)
        recalled.append(1.0 if rank else 0.0)
    return {"mrr@10": round(statistics.mean(reciprocal), 3), "recall@10": round(statistics.mean(recalled), 3)}


def median_ms(
    connection: sqlite3.Connection, texts: list[str], mode: str, passes: int
) -> tuple[float, float]:
    """The median wall and CPU milliseconds of one search in this mode, warm (one untimed pass
    first: the model and the vector matrix loaded), over ``passes`` passes through the questions.
    CPU time says what a query costs whatever the machine's load: on the shared 2-core machine at
    a load of 17 a 20 ms burst of the model was preempted six times a query (wall 4-14 times the
    CPU), where a 2 ms keyword query mostly ran whole."""
    for text in texts:
        search(connection, text, mode, 10)
    wall, cpu = [], []
    for _ in range(passes):
        for text in texts:
            began, used = time.perf_counter(), time.process_time()
            search(connection, text, mode, 10)
            wall.append(time.perf_counter() - began)
            cpu.append(time.process_time() - used)
    return round(statistics.median(wall) * 1000, 1), round(statistics.median(cpu) * 1000, 1)


def timed_sync(project: Project, path: Path, addition: str) -> dict[str, float]:
    path.write_text(path.read_text(encoding="utf-8") + addition, encoding="utf-8")
    began, cpu = time.monotonic(), time.process_time()
    project.sync()
    return {"seconds": round(time.monotonic() - began, 2), "cpu_seconds": round(time.process_time() - cpu, 2)}


def bench_set(name: str, source: Path, queries: Labelled, passes: int, keep: bool) -> dict[str, object]:
    work = Path(tempfile.mkdtemp(prefix="search-bench-")) / name
    # an index the corpus holds is copied too (the refresh then syncs nothing): the embedding is
    # measured cold all the same, from a store without vectors
    shutil.copytree(source, work)
    report: dict[str, object] = {"corpus": str(source)}
    try:
        with Project(work) as project:
            print(f"{name}: indexing ...", file=sys.stderr)
            project.refresh()
            kept_vectors = keep and semantic.has_vectors(project.store.connection)
            if not kept_vectors:
                with project.store.connection as connection:
                    connection.execute("DROP TABLE IF EXISTS node_embeddings")
                    connection.execute("DROP TABLE IF EXISTS embedding_vectors")
            keys = {k for (k,) in project.store.connection.execute("SELECT key FROM nodes")}
            kept = [(q, [a for a in accepted if a in keys]) for q, accepted in queries]
            report["queries"] = sum(1 for _, accepted in kept if accepted)
            report["queries_left_out"] = [q for q, accepted in kept if not accepted]
            kept = [(q, accepted) for q, accepted in kept if accepted]

            def progress(done: int, total: int) -> None:
                print(f"{name}: embedded {done}/{total}", file=sys.stderr)

            began, cpu = time.monotonic(), time.process_time()
            stats = project.embed(progress)
            wall, cpu = time.monotonic() - began, time.process_time() - cpu
            report["embed_cold"] = {
                "symbols": stats.symbols,
                "seconds": round(wall, 2),
                "cpu_seconds": round(cpu, 2),
                "ms_per_symbol": round(wall * 1000 / max(stats.symbols, 1), 2),
            }
            if kept_vectors:
                report["embed_cold"] = {
                    "symbols": stats.symbols,
                    "embedded": stats.embedded,
                    "not measured": "--keep-vectors: the corpus's stored vectors were kept",
                }
            for mode in MODES:
                report[mode] = scores(project, kept, mode)
            connection = project.store.connection
            texts = [q for q, _ in queries]
            latency: dict[str, float] = {
                "load_before": round(os.getloadavg()[0], 1),
                "queries": passes * len(texts),
            }
            for mode in MODES:
                latency[mode], latency[f"{mode}_cpu"] = median_ms(connection, texts, mode, passes)
            latency["load_after"] = round(os.getloadavg()[0], 1)
            latency["hybrid_over_keyword"] = round(latency["hybrid"] / max(latency["keyword"], 0.1), 1)
            report["latency_ms_median"] = latency
            relative, addition = EDITS[name]
            # a first sync untimed, so that neither of the pair pays for what a first sync does
            # after the copy (Django's with-model sync, timed first, cost 36 CPU s against 0.75)
            project.sync()
            with_model = timed_sync(project, work / relative, addition)
            with_model["reembedded"] = project.embed().embedded  # 0: the sync kept the vectors current
            os.environ["PROJECTGRAPH_SEMANTIC"] = "off"
            try:
                without = timed_sync(project, work / relative, addition.replace("shout", "whisper"))
            finally:
                del os.environ["PROJECTGRAPH_SEMANTIC"]
            report["one_file_sync"] = {
                "with_reembed": with_model,
                "without_model": without,
                "ratio": round(with_model["seconds"] / max(without["seconds"], 0.01), 2),
            }
    finally:
        shutil.rmtree(work.parent, ignore_errors=True)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--set", choices=("django", "rxjs", "all"), default="all")
    parser.add_argument("--django")
    parser.add_argument("--rxjs")
    parser.add_argument("--json")
    parser.add_argument("--passes", type=int, default=3, help="timed passes through the questions per mode")
    parser.add_argument("--keep-vectors", action="store_true", help="keep a copied index's vectors")
    args = parser.parse_args()
    if not semantic.model_available():
        sys.exit(f"the semantic extra is not installed: {semantic.INSTALL_HINT}")
    report: dict[str, object] = {"load_before": os.getloadavg()[0]}
    began = time.monotonic()
    semantic.embed_texts(["load the model once"])
    report["model_load_seconds"] = round(time.monotonic() - began, 2)
    if args.set in ("rxjs", "all"):
        report["rxjs"] = bench_set("rxjs", rxjs_corpus(args.rxjs), RXJS, args.passes, args.keep_vectors)
        print(json.dumps({"rxjs": report["rxjs"]}), file=sys.stderr)  # a long run shows each set done
    if args.set in ("django", "all"):
        report["django"] = bench_set(
            "django", django_corpus(args.django), DJANGO, args.passes, args.keep_vectors
        )
    report["load_after"] = os.getloadavg()[0]
    print(json.dumps(report, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
