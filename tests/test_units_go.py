"""Go units: discovery (GOROOT, vendor/modules.txt, the module cache) and reach through them.

The discovery tests and the hand-written vendored module need nothing. The real-source tests use
Debian's Go sources: ``golang-golang-x-net-dev`` (golang.org/x/net under /usr/share/gocode/src),
vendored into a project, and ``golang-src`` (a GOROOT under /usr/share/go-1.NN) as ``go:std``.
Without them those tests skip, except where ``PROJECTGRAPH_REQUIRE_DEPS_SOURCES=1`` (CI sets it,
after ``.ci/run`` installs the packages) makes that a failure.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conftest import git, write_tree
from projectgraph.graph import Graph
from projectgraph.indexer import IndexOptions
from projectgraph.languages.go.units import escape_module_path, go_version
from projectgraph.pipeline import build_graph
from projectgraph.reach import Query, ReachResult, Target, reach
from projectgraph.units import DepsConfig, DepsError, discover_units, parse_deps

X_NET = Path("/usr/share/gocode/src/golang.org/x/net")
GOROOTS = sorted(Path("/usr/share").glob("go-1.*"), key=lambda p: [int(n) for n in p.name[5:].split(".")])


def _unavailable(reason: str) -> None:
    if os.environ.get("PROJECTGRAPH_REQUIRE_DEPS_SOURCES") == "1":
        pytest.fail(
            f"Debian's dependency sources are required here (PROJECTGRAPH_REQUIRE_DEPS_SOURCES=1): {reason}"
        )
    pytest.skip(reason)


@pytest.fixture(autouse=True)
def _no_machine_go(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No GOROOT, module cache or go binary of the machine leaks into a test."""
    for name in ("GOROOT", "GOPATH", "GOMODCACHE", "GOFLAGS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GOENV", str(tmp_path / "no-go-env"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")


def run(root: Path, *deps: str) -> Graph:
    return build_graph(root, IndexOptions(workers=1, deps=parse_deps(deps))).graph


def answer(graph: Graph, target: str) -> ReachResult:
    return reach(graph, Query(targets=(Target.by_key(target),)))[0]


def hops(result: ReachResult) -> list[tuple[str, str]]:
    return [(hop.key, hop.kind) for hop in result.path]


GO_MOD = "module example.com/app\n\ngo 1.19\n"


# ---- discovery ---------------------------------------------------------------------------------


def test_vendor_modules_txt_gives_a_unit_per_module(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "app",
        {
            "go.mod": GO_MOD + "\nrequire (\n\texample.com/kit v1.2.0\n\texample.com/old v0.1.0\n)\n",
            "main.go": 'package main\n\nimport "example.com/kit"\n\nfunc main() { kit.Run() }\n',
            "vendor/modules.txt": (
                "# example.com/kit v1.2.0\n## explicit; go 1.18\nexample.com/kit\nexample.com/kit/inner\n"
                "# example.com/old v0.1.0 => example.com/new v0.3.0\n## explicit\nexample.com/old\n"
                "# example.com/local v0.0.0 => ./local\n## explicit\nexample.com/local\n"
            ),
            "vendor/example.com/kit/kit.go": "package kit\n\nfunc Run() {}\n",
            "vendor/example.com/kit/kit_test.go": "package kit\n",
            "vendor/example.com/kit/ignored.go": "//go:build ignore\n\npackage main\n",
            "vendor/example.com/kit/pure.go": "//go:build purego\n\npackage kit\n",
            "vendor/example.com/kit/linux.go": "//go:build linux && amd64\n\npackage kit\n",
            "vendor/example.com/kit/inner/inner.go": "package inner\n",
            "vendor/example.com/kit/unlisted/x.go": "package unlisted\n",
            "vendor/example.com/old/old.go": "package old\n",
            "local/local.go": "package local\n",
        },
    )
    units = {u.name: u for u in discover_units(root)}
    assert sorted(units) == ["go:example.com/kit@v1.2.0", "go:example.com/old@v0.3.0"]
    kit = units["go:example.com/kit@v1.2.0"]
    assert kit.files == ("inner/inner.go", "kit.go", "linux.go")  # every platform, only listed packages
    assert kit.excluded == ("ignored.go", "pure.go")
    assert kit.provides == ("example.com/kit", "example.com/kit/inner")
    assert kit.root == str((root / "vendor/example.com/kit").resolve())
    assert (kit.ecosystem, kit.package, kit.version, kit.languages) == (
        "go",
        "example.com/kit",
        "v1.2.0",
        ("go",),
    )
    assert units["go:example.com/old@v0.3.0"].files == ("old.go",)  # the replacement's version


def test_module_cache_per_go_mod_and_go_sum(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = write_tree(
        tmp_path / "cache",
        {
            "github.com/!burnt!sushi/toml@v1.2.1/decode.go": "package toml\n",
            "github.com/!burnt!sushi/toml@v1.2.1/go.mod": "module github.com/BurntSushi/toml\n",
            "github.com/!burnt!sushi/toml@v1.2.1/internal/tz.go": "package internal\n",
            "github.com/!burnt!sushi/toml@v1.2.1/testdata/x.go": "package x\n",
            "github.com/!burnt!sushi/toml@v1.2.1/cmd/tool/go.mod": "module github.com/BurntSushi/toml/cmd\n",
            "github.com/!burnt!sushi/toml@v1.2.1/cmd/tool/main.go": "package main\n",
            "golang.org/x/text@v0.3.0/text.go": "package text\n",
            "golang.org/x/text@v0.2.0/text.go": "package text\n",  # a version the build no longer selects
            "example.com/gone@v1.0.0/gone.go": "package gone\n",
            "example.com/summed@v1.9.2/s.go": "package summed\n",
            "example.com/summed@v1.10.0/s.go": "package summed\n",
        },
    )
    monkeypatch.setenv("GOMODCACHE", str(cache))
    root = write_tree(
        tmp_path / "app",
        {
            "go.mod": GO_MOD
            + "\nrequire (\n\tgithub.com/BurntSushi/toml v1.2.1\n\tgolang.org/x/text v0.3.0 // indirect\n)\n"
            + "require example.com/missing v1.0.0\n",
            "go.sum": (
                "github.com/BurntSushi/toml v1.2.1 h1:x=\ngithub.com/BurntSushi/toml v1.2.1/go.mod h1:y=\n"
                "golang.org/x/text v0.2.0 h1:z=\nexample.com/gone v1.0.0/go.mod h1:w=\n"
                "example.com/summed v1.9.2 h1:a=\nexample.com/summed v1.10.0 h1:b=\n"
                "example.com/summed v1.11.0-rc.1 h1:c=\n"
            ),
            "main.go": "package main\n",
        },
    )
    assert escape_module_path("github.com/BurntSushi/toml") == "github.com/!burnt!sushi/toml"
    units = {u.name: u for u in discover_units(root)}
    assert sorted(units) == [
        "go:example.com/summed@v1.10.0",  # only go.sum names it: the highest version the cache holds
        "go:github.com/BurntSushi/toml@v1.2.1",
        "go:golang.org/x/text@v0.3.0",  # go.mod's version, not go.sum's older one
    ]
    toml = units["go:github.com/BurntSushi/toml@v1.2.1"]
    assert toml.files == ("decode.go", "internal/tz.go")  # no nested module, no testdata
    assert toml.provides == ("github.com/BurntSushi/toml", "github.com/BurntSushi/toml/internal")


def test_standard_library_with_deps_stdlib_or_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    goroot = write_tree(
        tmp_path / "goroot",
        {
            "VERSION": "go1.22.2\ntime 2024-04-02T00:00:00Z\n",
            "src/go.mod": "module std\n\ngo 1.22\n",
            "src/net/http/client.go": "package http\n\nfunc Get(url string) {}\n",
            "src/net/http/client_test.go": "package http\n",
            "src/cmd/go/main.go": "package main\n",
            "src/vendor/golang.org/x/net/dns/msg.go": "package dns\n",
            "src/crypto/md5/gen.go": "//go:build ignore\n\npackage main\n",
        },
    )
    root = write_tree(tmp_path / "app", {"go.mod": GO_MOD, "main.go": "package main\n"})
    go_units = lambda config: [u for u in discover_units(root, config) if u.ecosystem == "go"]  # noqa: E731
    assert go_units(DepsConfig(stdlib=True)) == []  # no GOROOT known
    monkeypatch.setenv("GOROOT", str(goroot))
    assert go_units(DepsConfig()) == []  # auto alone leaves the standard library out
    (std,) = go_units(parse_deps(["stdlib"]))
    assert std.name == "go:std@go1.22.2"
    assert std.files == ("net/http/client.go", "vendor/golang.org/x/net/dns/msg.go")
    assert std.excluded == ("crypto/md5/gen.go",)
    assert std.provides == ("net/http",)  # its own vendor/ is no import path of a program
    for folder in (goroot, goroot / "src"):
        (named,) = discover_units(root, parse_deps([f"{folder}=go:std@go1.22.2"]))
        assert named.name == "go:std@go1.22.2" and named.root == str((goroot / "src").resolve())
    (tmp_path / "empty").mkdir()
    with pytest.raises(DepsError, match="no Go source file"):
        discover_units(root, parse_deps([f"{tmp_path / 'empty'}=go:example.com/y@v1.0.0"]))


def test_go_version_from_version_file_or_source_tree(tmp_path: Path) -> None:
    write_tree(tmp_path / "a", {"VERSION": "go1.25.1\n"})
    write_tree(
        tmp_path / "b", {"src/internal/goversion/goversion.go": "package goversion\n\nconst Version = 19\n"}
    )
    assert go_version(tmp_path / "a") == "go1.25.1"
    assert go_version(tmp_path / "b") == "go1.19"
    assert go_version(tmp_path / "c") == "unknown"


# ---- reach through a vendored module (written here) --------------------------------------------

KIT = {
    "go.mod": GO_MOD + "\nrequire (\n\texample.com/kit v1.0.0\n\tgithub.com/absent/mod v0.1.0\n)\n",
    "vendor/modules.txt": (
        "# example.com/kit v1.0.0\n## explicit; go 1.19\nexample.com/kit\nexample.com/kit/store\n"
    ),
    "vendor/example.com/kit/kit.go": (
        'package kit\n\nimport "example.com/kit/store"\n\n'
        "// Kit keeps a store.\ntype Kit struct {\n\tDB *store.DB\n}\n\n"
        "// New makes a Kit.\nfunc New() *Kit { return &Kit{DB: store.Open()} }\n\n"
        "func (k *Kit) Run() { k.step() }\n\nfunc (k *Kit) step() { flush() }\n\nfunc flush() {}\n"
    ),
    "vendor/example.com/kit/store/store.go": (
        "package store\n\ntype DB struct{}\n\nfunc Open() *DB { return &DB{} }\n\n"
        "func (d *DB) Save() { d.write() }\n\nfunc (d *DB) write() {}\n"
    ),
    "main.go": (
        'package main\n\nimport (\n\t"example.com/kit"\n\t"github.com/absent/mod"\n)\n\n'
        "func main() {\n\tk := kit.New()\n\tk.Run()\n\tk.DB.Save()\n\tm := mod.Make()\n\tm.Go()\n}\n"
    ),
}


def test_reach_through_a_vendored_module_and_its_package_edges(tmp_path: Path) -> None:
    graph = run(write_tree(tmp_path / "app", KIT))
    assert not [f.path for f in graph.files if f.path.startswith("vendor/")]  # vendor/ is the unit's
    unit = "go:example.com/kit@v1.0.0"
    assert graph.stats["units"] and unit in graph.stats["units"]
    calls = {(e.caller, e.callee, e.kind) for e in graph.edges}
    # the result type of kit.New comes from the unit: k.Run() is the method's external key
    assert ("main.go//main", "example.com//kit//Kit//Run", "member") in calls
    assert ("main.go//main", "example.com//kit//store//DB//Save", "member") in calls  # a field's type
    assert ("example.com//kit//Kit//Run", f"{unit}//kit.go//Kit//Run", "package") in calls
    nodes = {n.key: n for n in graph.nodes}
    assert nodes[f"{unit}//kit.go//flush"].external == "example.com//kit//flush"  # unexported too
    assert nodes[f"{unit}//kit.go//flush"].unit == unit
    found = answer(graph, "example.com//kit//flush")
    assert found.status == "found"
    assert ("example.com//kit//Kit//Run", "member") in hops(found)
    assert (f"{unit}//kit.go//Kit//Run", "package") in hops(found)  # the path crosses the package edge
    assert answer(graph, "example.com//kit//store//DB//write").status == "found"
    # a module no unit gives: the method on what it returned is no-dependency-source, a target
    # inside it is uncertain, never not-found
    sites = [u for u in graph.unresolved if u.caller == "main.go//main" and u.name == "Go"]
    assert [u.reason for u in sites] == ["no-dependency-source"]
    inside = answer(graph, "github.com//absent//mod//inner")
    assert inside.status == "uncertain"
    assert any("no-dependency-source" in u.reason for u in inside.uncertainties)


def test_a_git_listed_vendor_folder_is_the_units_too(tmp_path: Path, git_env: Path) -> None:
    root = write_tree(tmp_path / "app", KIT)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "app with vendor/")
    graph = run(root)
    assert [f.path for f in graph.files if not f.unit] == ["main.go"]
    assert answer(graph, "example.com//kit//flush").status == "found"


def test_without_deps_the_vendor_folder_is_not_a_unit(tmp_path: Path) -> None:
    graph = run(write_tree(tmp_path / "app", KIT), "none")
    assert not graph.stats.get("units")
    assert not any(e.kind == "package" for e in graph.edges)


# ---- real sources: golang.org/x/net vendored, the standard library ------------------------------


@pytest.mark.parametrize("where", ["vendor", "module-cache"])
def test_reach_through_golang_org_x_net_html(
    tmp_path: Path, where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not (X_NET / "html" / "token.go").is_file():
        _unavailable("no golang.org/x/net sources (Debian's golang-golang-x-net-dev)")
    root = tmp_path / "app"
    if where == "vendor":
        module = root / "vendor/golang.org/x/net"
        write_tree(
            root,
            {
                "vendor/modules.txt": (
                    "# golang.org/x/net v0.7.0\n## explicit; go 1.17\n"
                    "golang.org/x/net/html\ngolang.org/x/net/html/atom\n"
                )
            },
        )
    else:  # the module cache holds the whole module, with its go.mod
        module = tmp_path / "gopath/pkg/mod/golang.org/x/net@v0.7.0"
        monkeypatch.setenv("GOPATH", str(tmp_path / "gopath"))
    shutil.copytree(  # html and html/atom, as go mod vendor copies them for an import of html
        X_NET / "html", module / "html", ignore=shutil.ignore_patterns("testdata", "*_test.go", "charset")
    )
    if where == "module-cache":
        shutil.copy(X_NET / "go.mod", module / "go.mod")
    write_tree(
        root,
        {
            "go.mod": GO_MOD + "\nrequire golang.org/x/net v0.7.0\n",
            "main.go": (
                'package main\n\nimport (\n\t"os"\n\t"strings"\n\n\t"golang.org/x/net/html"\n)\n\n'
                'func main() {\n\tz := html.NewTokenizer(strings.NewReader("<p>hi</p>"))\n\tz.Next()\n'
                "\tdoc, err := html.Parse(os.Stdin)\n\tif err != nil {\n\t\treturn\n\t}\n"
                "\thtml.Render(os.Stdout, doc)\n}\n"
            ),
        },
    )
    graph = run(root)
    unit = "go:golang.org/x/net@v0.7.0"
    edges = {(e.caller, e.callee, e.kind) for e in graph.edges}
    # the seed's example: z := html.NewTokenizer(r); z.Next()
    assert ("main.go//main", "golang.org//x//net//html//Tokenizer//Next", "member") in edges
    assert (
        "golang.org//x//net//html//Tokenizer//Next",
        f"{unit}//html/token.go//Tokenizer//Next",
        "package",
    ) in edges
    render1 = answer(graph, "golang.org//x//net//html//render1")  # unexported, only the unit calls it
    assert render1.status == "found"
    assert hops(render1)[:3] == [
        ("main.go//main", "main"),
        ("golang.org//x//net//html//Render", "direct"),
        (f"{unit}//html/render.go//Render", "package"),
    ]
    assert hops(render1)[-1] == (f"{unit}//html/render.go//render1", "direct")
    assert answer(graph, "golang.org//x//net//html//Tokenizer//readByte").status == "found"
    # strings has no unit here: a target in it is uncertain
    assert answer(graph, "strings//Reader//ReadByte").status == "uncertain"


@pytest.fixture(scope="module")
def goroot() -> Path:
    found = [p for p in GOROOTS if (p / "src" / "net" / "http" / "client.go").is_file()]
    if not found:
        _unavailable("no Go source tree (Debian's golang-src) under /usr/share/go-1.*")
    return found[-1]


def test_reach_through_the_standard_library(
    tmp_path: Path, goroot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOROOT", str(goroot))
    root = write_tree(
        tmp_path / "web",
        {
            "go.mod": "module example.com/web\n\ngo 1.19\n",
            "main.go": (
                'package main\n\nimport "net/http"\n\nfunc main() {\n\tresp, err := http.Get("http://127.0.0.1:1/")\n'
                "\tif err != nil {\n\t\treturn\n\t}\n\tresp.Body.Close()\n}\n"
            ),
        },
    )
    without = answer(run(root), "net//http//setRequestCancel")
    assert without.status == "uncertain"  # no go:std: the call into net/http is no-dependency-source
    # the GOROOT named as the seed writes it (-deps $(go env GOROOT)/src=go:std@<version>); --deps
    # stdlib finds the same unit through $GOROOT (test_standard_library_with_deps_stdlib_or_named)
    std = f"go:std@{go_version(goroot)}"
    graph = build_graph(root, IndexOptions(workers=2, deps=parse_deps(["auto", f"{goroot}/src={std}"]))).graph
    assert std in graph.stats["units"]
    found = answer(graph, "net//http//setRequestCancel")
    assert found.status == "found"
    crossing = [i for i, (key, kind) in enumerate(hops(found)) if kind == "package"]
    assert crossing and hops(found)[crossing[0]][0].startswith(f"{std}//net/http/")  # into the unit
    assert not hops(found)[crossing[0] - 1][0].startswith(std)  # from the external key
    assert hops(found)[-1] == (f"{std}//net/http/client.go//setRequestCancel", "direct")
    edges = {(e.caller, e.callee, e.kind) for e in graph.edges}
    assert ("main.go//main", "net//http//Get", "direct") in edges
    assert ("net//http//Get", f"{std}//net/http/client.go//Get", "package") in edges
    assert not [f for f in graph.files if f.unit == std and f.path.startswith(f"{std}//cmd/")]
    # the standard library's own vendor/ copies are its code, under no key a program writes
    vendored = [n for n in graph.nodes if n.unit == std and n.path.startswith(f"{std}//vendor/")]
    assert vendored and not [n.key for n in vendored if n.external]


def test_result_types_the_seed_tabulates(tmp_path: Path) -> None:
    """An interface result: cha edges to the unit's implementations at their external keys; two
    platform files with two result types, or a name the unit does not define: unknown-receiver."""
    root = write_tree(
        tmp_path / "app",
        {
            "go.mod": GO_MOD + "\nrequire example.com/plat v1.0.0\n",
            "vendor/modules.txt": "# example.com/plat v1.0.0\n## explicit\nexample.com/plat\n",
            "vendor/example.com/plat/plat.go": (
                "package plat\n\ntype Doer interface{ Do() }\n\ntype disk struct{}\n\n"
                "func (disk) Do() { spin() }\n\nfunc spin() {}\n\nfunc Pick() Doer { return disk{} }\n\n"
                "type A struct{}\n\nfunc (A) Run() {}\n\ntype B struct{}\n\nfunc (B) Run() {}\n"
            ),
            "vendor/example.com/plat/open_linux.go": "package plat\n\nfunc Open() *A { return &A{} }\n",
            "vendor/example.com/plat/open_windows.go": "package plat\n\nfunc Open() *B { return &B{} }\n",
            "main.go": (
                'package main\n\nimport "example.com/plat"\n\nfunc main() {\n\td := plat.Pick()\n\td.Do()\n'
                "\to := plat.Open()\n\to.Run()\n\tplat.Missing().Run()\n}\n"
            ),
        },
    )
    graph = run(root)
    edges = {(e.caller, e.callee, e.kind) for e in graph.edges}
    assert ("main.go//main", "example.com//plat//Doer//Do", "member") in edges
    assert ("main.go//main", "example.com//plat//disk//Do", "cha") in edges  # unexported, by its key
    assert answer(graph, "example.com//plat//spin").status == "found"
    reasons = {(u.name, u.reason) for u in graph.unresolved if u.caller == "main.go//main"}
    assert ("Run", "unknown-receiver") in reasons  # two platform files, two types; and Missing
    assert not any(c == "main.go//main" and k.endswith("//Run") for c, k, _ in edges)


def test_named_folders_of_go_units(tmp_path: Path) -> None:
    """``DIR=go``: a vendor folder (modules.txt), a module cache read per the project's go.mod, or a
    GOROOT; another folder is an error that names it."""
    root = write_tree(tmp_path / "app", {**KIT, "go.mod": GO_MOD + "\nrequire example.com/kit v1.0.0\n"})
    (vendored,) = discover_units(root, parse_deps([f"{root / 'vendor'}=go"]))
    assert vendored.name == "go:example.com/kit@v1.0.0" and "store/store.go" in vendored.files
    cache = write_tree(tmp_path / "cache", {"example.com/kit@v1.0.0/kit.go": "package kit\n"})
    (cached,) = discover_units(root, parse_deps([f"{cache}=go"]))
    assert cached.name == "go:example.com/kit@v1.0.0" and cached.root == str(
        (cache / "example.com/kit@v1.0.0").resolve()
    )
    goroot = write_tree(
        tmp_path / "goroot",
        {"VERSION": "go1.21.0\n", "src/go.mod": "module std\n", "src/os/f.go": "package os\n"},
    )
    (std,) = discover_units(root, parse_deps([f"{goroot}=go"]))
    assert std.name == "go:std@go1.21.0"
    (tmp_path / "other").mkdir()
    with pytest.raises(DepsError, match="other=go: neither a vendor folder"):
        discover_units(root, parse_deps([f"{tmp_path / 'other'}=go"]))


def test_a_unit_package_variable_gives_its_type_and_a_function_variable_stays_a_key(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "app",
        {
            "go.mod": GO_MOD + "\nrequire example.com/cfg v1.0.0\n",
            "vendor/modules.txt": "# example.com/cfg v1.0.0\n## explicit\nexample.com/cfg\n",
            "vendor/example.com/cfg/cfg.go": (
                "package cfg\n\ntype Store struct{}\n\nfunc (s *Store) Load() { parse() }\n\n"
                "func parse() {}\n\nvar Default = &Store{}\n\nvar Hook = func() { hooked() }\n\n"
                "func hooked() {}\n"
            ),
            "main.go": (
                'package main\n\nimport "example.com/cfg"\n\n'
                "func main() {\n\tcfg.Default.Load()\n\tcfg.Hook()\n}\n"
            ),
        },
    )
    graph = run(root)
    edges = {(e.caller, e.callee, e.kind) for e in graph.edges}
    assert ("main.go//main", "example.com//cfg//Store//Load", "member") in edges
    assert ("main.go//main", "example.com//cfg//Hook", "direct") in edges
    assert answer(graph, "example.com//cfg//parse").status == "found"
    # the import runs the package's top level, where the function literal's calls are
    unit = "go:example.com/cfg@v1.0.0"
    assert ("example.com//cfg", f"{unit}//cfg.go", "package") in edges
    assert answer(graph, "example.com//cfg//hooked").status == "found"


def test_a_workspace_vendor_folder(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "ws",
        {
            "go.work": "go 1.22\n\nuse (\n\t./app\n\t./lib\n)\n",
            "app/go.mod": "module example.com/app\n\ngo 1.22\n\nrequire example.com/kit v1.0.0\n",
            "app/main.go": 'package main\n\nimport "example.com/kit"\n\nfunc main() { kit.New().Run() }\n',
            "lib/go.mod": "module example.com/lib\n\ngo 1.22\n",
            "lib/lib.go": "package lib\n",
            "vendor/modules.txt": KIT["vendor/modules.txt"],
            "vendor/example.com/kit/kit.go": KIT["vendor/example.com/kit/kit.go"],
            "vendor/example.com/kit/store/store.go": KIT["vendor/example.com/kit/store/store.go"],
        },
    )
    assert [u.name for u in discover_units(root) if u.ecosystem == "go"] == ["go:example.com/kit@v1.0.0"]
    graph = run(root)
    assert answer(graph, "example.com//kit//flush").status == "found"
