"""The generic linker: every language of the generic tier, by names and the files imports name.

What it resolves, from the most certain to the least:

- a bare call ``f()`` to a definition of that qualified name in an enclosing container (``Cls.f``
  from a method of ``Cls``, including a class defined in another file) or at the top level of the
  same file: a ``direct`` edge when one definition has that name there;
- a call on the instance (``this.f()``, ``self.f``) to the member of the enclosing type, found
  through the bases the index records when the type lacks it;
- a call on an import's alias (``util.clean()`` after ``local util = require("util")``) to the
  definition of that name in the imported file (``direct``);
- a qualified call (``Cart.build()``, ``Shop::Cart.build``, ``M.new()``) to the definition whose
  qualified name ends with it: ``direct`` in the same file, ``name`` elsewhere;
- else name-level edges (``name``, low confidence) to each first-party definition of the name in the
  same language family, at most ``MAX_NAME_CANDIDATES``: free functions and types for a bare call,
  methods for a call on a receiver.

What stays unknown is an unresolved site, so reach stays honest: a call on a receiver whose type the
index cannot know is ``unknown-receiver`` (with its name edges beside it), a name with too many
candidates is ``ambiguous``, a name defined nowhere in the project is ``no-definition``, a call of
an expression is ``computed-name``. Code outside the test files never gets an edge into a test file
by name. Imports give ``imports`` edges to the project files their language's path templates name.
"""

from __future__ import annotations

import importlib
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import cache, cached_property

from projectgraph import keys
from projectgraph.fileindex import Call, FileIndex, Import
from projectgraph.graph import Site, Unresolved
from projectgraph.languages import all_languages
from projectgraph.languages.generic import CALLABLE_KINDS, MODULE_KINDS, TYPE_KINDS, GenericLanguage
from projectgraph.link.core import DefInfo, GraphBuilder, LinkContext, module_node, node_for
from projectgraph.link.gates import MAX_NAME_CANDIDATES

MAX_BASE_DEPTH = 8
_CONSTRUCTED = TYPE_KINDS - {"interface", "trait", "protocol", "mixin", "type"}
_ABSTRACT = frozenset({"interface", "trait", "protocol"})
_SEPARATORS = re.compile(r"\?\.|\?->|::|->|\.|:|\\")
_TEMPLATE_ARGS = re.compile(r"<[^<>]*>|\[[^\[\]]*\]")


@cache
def generic_languages() -> dict[str, GenericLanguage]:
    """Every registered language of the generic tier, by name."""
    found: dict[str, GenericLanguage] = {}
    for name, spec in all_languages().items():
        if spec.tier != "generic":
            continue
        package = importlib.import_module(spec.extractor.partition(":")[0])
        language = getattr(package, "GENERIC", None)
        if isinstance(language, GenericLanguage):
            found[name] = language
    return found


@dataclass
class _File:
    index: FileIndex
    language: GenericLanguage
    is_test: bool
    defs: dict[str, list[DefInfo]] = field(default_factory=dict)  # by qualname
    aliases: dict[str, list[str]] = field(default_factory=dict)  # import alias -> files it names
    imported: set[str] = field(default_factory=set)  # the files its imports name
    external_names: set[str] = field(default_factory=set)  # names its imports bind outside the project

    @property
    def path(self) -> str:
        return self.index.path

    @cached_property
    def family(self) -> str:
        return self.language.link_family


class GenericLinker:
    def __init__(
        self, indexes: Iterable[FileIndex], builder: GraphBuilder, test_paths: Sequence[str]
    ) -> None:
        self.builder = builder
        self.registry = generic_languages()
        self.languages = tuple(sorted(self.registry))
        self.test_paths = tuple(test_paths)
        self.files: dict[str, _File] = {}
        self.by_name: dict[tuple[str, str], list[DefInfo]] = {}  # (family, name)
        self.by_qualname: dict[tuple[str, str], list[DefInfo]] = {}  # (family, qualname)
        self.kinds: dict[str, str] = {}  # key -> the definition kind
        self.paths: set[str] = set()
        self.by_basename: dict[str, list[str]] = {}
        # memos of the name tables, per (family, name, caller is a test): big projects ask the same
        self._memo_qualified: dict[tuple[str, str, bool], list[DefInfo]] = {}
        self._memo_free: dict[tuple[str, str, bool], tuple[list[DefInfo], list[DefInfo]]] = {}
        self._memo_methods: dict[tuple[str, str, bool], list[DefInfo]] = {}
        self._memo_bases: dict[tuple[str, bool], list[DefInfo]] = {}
        for index in sorted(indexes, key=lambda i: i.path):
            language = self.registry.get(index.language)
            if language is None:
                continue
            gfile = _File(index, language, self._is_test(index.path))
            self.files[index.path] = gfile
            self.paths.add(index.path)
            self.by_basename.setdefault(posixpath.basename(index.path), []).append(index.path)
            family = language.link_family
            for d in index.definitions:
                info = DefInfo(keys.first_party(index.path, d.qualname), index.path, d, index.language)
                gfile.defs.setdefault(d.qualname, []).append(info)
                if info.key in self.kinds:
                    continue  # an overload: one node stands for every definition of the name
                self.kinds[info.key] = d.kind
                self.by_name.setdefault((family, d.name), []).append(info)
                self.by_qualname.setdefault((family, d.qualname), []).append(info)

    def _is_test(self, path: str) -> bool:
        for pattern in self.test_paths:
            if fnmatchcase(path, pattern) or fnmatchcase("/" + path, "/" + pattern):
                return True
            if pattern.startswith("**/") and fnmatchcase(path, pattern[3:]):
                return True
        return False

    # ---- the whole run --------------------------------------------------------------------------
    def link(self) -> None:
        for gfile in self.files.values():
            self.builder.node(module_node(gfile.path, gfile.index.language))
            for infos in gfile.defs.values():
                self.builder.node(node_for(infos[0]))
        for gfile in self.files.values():
            for imp in gfile.index.imports:
                self._import(gfile, imp)
        for gfile in self.files.values():
            for infos in gfile.defs.values():
                if infos[0].definition.bases:
                    self._bases(gfile, infos[0])
            for call in gfile.index.calls:
                self._call(gfile, call)

    def _caller(self, gfile: _File, scope: str) -> str:
        return keys.first_party(gfile.path, scope) if scope in gfile.defs else gfile.path

    def _allowed(self, gfile: _File, infos: Iterable[DefInfo]) -> list[DefInfo]:
        """The candidates a name may bind from this file: never from non-test code into a test file."""
        if gfile.is_test:
            return list(infos)
        return [info for info in infos if not self.files[info.path].is_test]

    # ---- imports --------------------------------------------------------------------------------
    def _import(self, gfile: _File, imp: Import) -> None:
        groups = gfile.language.imports.get(imp.kind)
        if not groups or not imp.module:
            if imp.alias or imp.name:
                gfile.external_names.add(imp.alias or imp.name or "")
            return
        targets = self._import_targets(gfile.path, imp.module, groups)
        caller = self._caller(gfile, imp.scope)
        site = Site(gfile.path, imp.line, 0)
        for target in targets:
            if target != gfile.path:
                self.builder.edge(caller, target, "imports", "import", site)
                gfile.imported.add(target)
        bound = imp.alias or imp.name
        if not targets and bound:
            gfile.external_names.add(bound)
        if targets and bound:
            gfile.aliases.setdefault(bound, []).extend(
                t for t in targets if t not in gfile.aliases.get(bound, ())
            )

    def _import_targets(self, path: str, module: str, groups: tuple[tuple[str, ...], ...]) -> list[str]:
        folder = posixpath.dirname(path)
        for group in groups:
            found: list[str] = []
            for template in group:
                rendered = _render(template, module)
                if rendered is None:
                    continue
                for target in self._files_named(folder, rendered):
                    if target not in found:
                        found.append(target)
            if found:
                return found
        return []

    def _files_named(self, folder: str, rendered: str) -> list[str]:
        """The one project file a rendered template names, or none when it names several."""
        if rendered.startswith("**/"):
            tail = rendered[3:].lstrip("/")
            candidates = [
                p
                for p in self.by_basename.get(posixpath.basename(tail), ())
                if p == tail or p.endswith("/" + tail)
            ]
            return candidates if len(candidates) == 1 else []
        if rendered.startswith("./"):
            target = posixpath.normpath(posixpath.join(folder, rendered[2:].lstrip("/")))
        else:
            target = posixpath.normpath(rendered.lstrip("/"))
        return [target] if target in self.paths else []

    # ---- bases ----------------------------------------------------------------------------------
    def _bases(self, gfile: _File, info: DefInfo) -> None:
        site = Site(gfile.path, info.definition.line, info.definition.column)
        for base in self._base_types(gfile, info):
            relation = "implements" if self.kinds[base.key] in _ABSTRACT else "extends"
            self.builder.edge(info.key, base.key, relation, relation, site)

    def _base_types(self, gfile: _File, info: DefInfo) -> list[DefInfo]:
        """The first-party types the bases of a type name, when each names one type."""
        slot = (info.key, gfile.is_test)
        known = self._memo_bases.get(slot)
        if known is not None:
            return known
        found: list[DefInfo] = []
        self._memo_bases[slot] = found  # a cycle of bases ends here
        for base in info.definition.bases:
            text = _normal(_TEMPLATE_ARGS.sub("", base))
            if not text:
                continue
            candidates = [c for c in self._qualified(gfile, text) if self.kinds[c.key] in TYPE_KINDS]
            if len(candidates) == 1 and candidates[0].key != info.key:
                found.append(candidates[0])
        return found

    def _member(self, gfile: _File, owner: DefInfo, name: str, depth: int = 0) -> DefInfo | None:
        """The member ``name`` of a type, or of the first of its bases (depth first) that has one."""
        members = self.by_qualname.get((gfile.family, f"{owner.qualname}.{name}"), [])
        same = [m for m in members if m.path == owner.path]
        if same or members:
            return (same or members)[0]
        if depth >= MAX_BASE_DEPTH:
            return None
        owner_file = self.files[owner.path]
        for base in self._base_types(owner_file, owner):
            found = self._member(owner_file, base, name, depth + 1)
            if found is not None:
                return found
        return None

    # ---- calls ----------------------------------------------------------------------------------
    def _call(self, gfile: _File, call: Call) -> None:
        caller = self._caller(gfile, call.scope)
        site = Site(gfile.path, call.line, call.column)
        if not call.name or call.callee == "<expr>":
            self._unresolved(caller, site, "computed-name", "", call.text)
        elif call.new:
            self._construction(gfile, caller, site, call)
        elif call.receiver is None:
            self._bare(gfile, caller, site, call)
        elif call.receiver in gfile.language.self_names:
            self._self_call(gfile, caller, site, call)
        elif call.receiver in gfile.language.super_names:
            self._super_call(gfile, caller, site, call)
        else:
            self._receiver_call(gfile, caller, site, call)

    def _edges(
        self, caller: str, site: Site, targets: Sequence[DefInfo], kind: str, call: Call | None = None
    ) -> None:
        if len(targets) > MAX_NAME_CANDIDATES and call is not None:
            self._unresolved(caller, site, "ambiguous", call.name, call.text)
            return
        for info in targets:
            self.builder.edge(caller, info.key, "calls", kind, site)
            if self.kinds[info.key] in _CONSTRUCTED:
                for ctor in self._constructors(info):
                    self.builder.edge(caller, ctor.key, "calls", kind, site)

    def _constructors(self, cls: DefInfo) -> list[DefInfo]:
        family = self.files[cls.path].family
        return [
            info
            for info in self.by_qualname.get((family, f"{cls.qualname}.{cls.definition.name}"), [])
            + [
                member
                for ctor in self.files[cls.path].language.constructor_names
                for member in self.by_qualname.get((family, f"{cls.qualname}.{ctor}"), [])
            ]
            if info.definition.kind == "constructor"
        ]

    def _resolve_in(self, gfile: _File, found: list[DefInfo]) -> tuple[list[DefInfo], str] | None:
        """Candidates to edges: the same file's first (``direct`` when one), then the project's."""
        found = self._allowed(gfile, found)
        if not found:
            return None
        same = [info for info in found if info.path == gfile.path]
        if len(same) == 1:
            return same, "direct"
        if len(found) == 1:
            # one definition, in a file this one imports: as confident as the same file
            return found, "direct" if found[0].path in gfile.imported else "name"
        return found, "name"

    def _bare(self, gfile: _File, caller: str, site: Site, call: Call) -> None:
        name = call.name
        # enclosing containers, innermost first, then the file's top level
        for container in _containers(call.scope):
            qualname = f"{container}.{name}" if container else name
            local = gfile.defs.get(qualname)
            if local:
                self._edges(caller, site, local[:1], "direct")
                return
            if container:
                resolved = self._resolve_in(gfile, self.by_qualname.get((gfile.family, qualname), []))
                if resolved is not None:
                    self._edges(caller, site, *resolved, call)
                    return
        owner = self._enclosing_type(gfile, call.scope)
        if owner is not None:
            member = self._member(gfile, owner, name)
            if member is not None:
                self._edges(caller, site, [member], "direct" if member.path == gfile.path else "name")
                return
        free, callables = self._free_and_callables(gfile, name)
        if not free and owner is not None:  # an inherited member the bases do not show
            free = callables
        resolved = self._resolve_in(gfile, free)
        if resolved is None:
            self._unresolved(caller, site, "no-definition", name, call.text)
        else:
            self._edges(caller, site, *resolved, call)

    def _free_and_callables(self, gfile: _File, name: str) -> tuple[list[DefInfo], list[DefInfo]]:
        """The free functions and types of a name, and every callable of it, allowed from this file."""
        slot = (gfile.family, name, gfile.is_test)
        found = self._memo_free.get(slot)
        if found is None:
            everywhere = self._allowed(gfile, self.by_name.get((gfile.family, name), []))
            found = (
                [info for info in everywhere if self._free(info)],
                [info for info in everywhere if self.kinds[info.key] in CALLABLE_KINDS],
            )
            self._memo_free[slot] = found
        return found

    def _free(self, info: DefInfo) -> bool:
        """A function of no type, or a type that a call constructs."""
        kind = self.kinds[info.key]
        if kind in _CONSTRUCTED:
            return True
        return kind in ("function", "macro") and self._owner_kind(info) not in TYPE_KINDS

    def _owner_kind(self, info: DefInfo) -> str:
        owner = info.qualname.rpartition(".")[0]
        infos = self.files[info.path].defs.get(owner) if owner else None
        return self.kinds[infos[0].key] if infos else ""

    def _enclosing_type(self, gfile: _File, scope: str) -> DefInfo | None:
        """The innermost type around a scope: in this file, or (a method defined outside its class)
        the type of that qualified name elsewhere in the family."""
        for container in _containers(scope):
            if not container:
                break
            for info in gfile.defs.get(container, []) or self.by_qualname.get((gfile.family, container), []):
                if self.kinds[info.key] in TYPE_KINDS:
                    return info
        return None

    def _self_call(self, gfile: _File, caller: str, site: Site, call: Call) -> None:
        owner = self._enclosing_type(gfile, call.scope)
        if owner is not None:
            member = self._member(gfile, owner, call.name)
            if member is not None:
                self._edges(caller, site, [member], "direct" if member.path == gfile.path else "name")
                return
        else:
            # no type around (a Lua ``function M:f()``): the function's own container
            container = call.scope.rpartition(".")[0]
            if container:
                qualname = f"{container}.{call.name}"
                local = gfile.defs.get(qualname)
                if local:
                    self._edges(caller, site, local[:1], "direct")
                    return
        self._unknown_receiver(gfile, caller, site, call)

    def _super_call(self, gfile: _File, caller: str, site: Site, call: Call) -> None:
        owner = self._enclosing_type(gfile, call.scope)
        if owner is not None:
            owner_file = self.files[owner.path]
            for base in self._base_types(owner_file, owner):
                member = self._member(owner_file, base, call.name)
                if member is not None:
                    self._edges(caller, site, [member], "direct" if member.path == gfile.path else "name")
                    return
        # a base the project does not define: no guess by name, the site says it
        self._unresolved(caller, site, "unknown-receiver", call.name, call.text)

    def _receiver_call(self, gfile: _File, caller: str, site: Site, call: Call) -> None:
        receiver = call.receiver or ""
        if receiver.startswith("<"):
            self._unknown_receiver(gfile, caller, site, call)
            return
        path = _normal(receiver)
        # an import's alias (``money.round``, ``cart.Cart.total``): the definition of that name in
        # the file it names, at its top level or in the table or type the file is about
        head, _, rest = path.partition(".")
        targets = gfile.aliases.get(head)
        if targets:
            qualname = f"{rest}.{call.name}" if rest else call.name
            found = [
                info
                for target in targets
                for info in self.files[target].defs.get(qualname, [])
                + [
                    member
                    for member in self.by_name.get((gfile.family, call.name), [])
                    if member.path == target and not rest and member.qualname.count(".") == 1
                ]
            ]
            found = list({info.key: info for info in found}.values())
            if len(found) == 1:
                self._edges(caller, site, found, "direct")
                return
        members = self._qualified(gfile, f"{path}.{call.name}")
        resolved = self._resolve_in(gfile, members)
        if resolved is not None:
            self._edges(caller, site, *resolved, call)
            return
        owners = [
            info for info in self._qualified(gfile, path) if self.kinds[info.key] in TYPE_KINDS | MODULE_KINDS
        ]
        if len(owners) == 1:
            owner = owners[0]
            member = self._member(gfile, owner, call.name)
            if member is not None:
                self._edges(caller, site, [member], "direct" if member.path == gfile.path else "name")
                return
            if call.name in gfile.language.new_methods and self.kinds[owner.key] in _CONSTRUCTED:
                self._edges(caller, site, [owner], "direct" if owner.path == gfile.path else "name")
                return
        self._unknown_receiver(gfile, caller, site, call)

    def _qualified(self, gfile: _File, dotted: str) -> list[DefInfo]:
        """The definitions whose qualified name is ``dotted`` or ends with it, allowed from this file."""
        slot = (gfile.family, dotted, gfile.is_test)
        found = self._memo_qualified.get(slot)
        if found is None:
            last = dotted.rpartition(".")[2]
            suffix = "." + dotted
            found = self._allowed(
                gfile,
                [
                    info
                    for info in self.by_name.get((gfile.family, last), [])
                    if info.qualname == dotted or info.qualname.endswith(suffix)
                ],
            )
            self._memo_qualified[slot] = found
        return found

    def _construction(self, gfile: _File, caller: str, site: Site, call: Call) -> None:
        dotted = f"{_normal(call.receiver)}.{call.name}" if call.receiver else call.name
        for container in _containers(call.scope) if not call.receiver else ():
            local = gfile.defs.get(f"{container}.{dotted}" if container else dotted)
            if local and self.kinds[local[0].key] in _CONSTRUCTED:
                self._edges(caller, site, local[:1], "direct")
                return
        types = [info for info in self._qualified(gfile, dotted) if self.kinds[info.key] in _CONSTRUCTED]
        resolved = self._resolve_in(gfile, types)
        if resolved is None:
            self._unresolved(caller, site, "no-definition", call.name, call.text)
        else:
            self._edges(caller, site, *resolved, call)

    def _unknown_receiver(self, gfile: _File, caller: str, site: Site, call: Call) -> None:
        """A receiver of unknown type: the site stays unresolved; methods of the name get name edges,
        unless the receiver names a type or module the project does not define (``Math.round``,
        ``std::sort``, an import of a library): then no project method can be the callee."""
        self._unresolved(caller, site, "unknown-receiver", call.name, call.text)
        if self._external_receiver(gfile, call.receiver or ""):
            return
        slot = (gfile.family, call.name, gfile.is_test)
        members = self._memo_methods.get(slot)
        if members is None:
            members = [
                info
                for info in self._allowed(gfile, self.by_name.get((gfile.family, call.name), []))
                if self.kinds[info.key] == "method"
            ]
            self._memo_methods[slot] = members
        if 0 < len(members) <= MAX_NAME_CANDIDATES:
            self._edges(caller, site, members, "name")

    def _external_receiver(self, gfile: _File, receiver: str) -> bool:
        if receiver.startswith("<") or receiver in gfile.language.self_names:
            return False
        if "::" in receiver or "\\" in receiver:
            return True  # a scope path: a namespace or a type, not an instance
        head = _normal(receiver).partition(".")[0]
        if head[:1].isupper():
            return True  # by the convention of every language here, a type or a module
        return head in gfile.external_names

    def _unresolved(self, caller: str, site: Site, reason: str, name: str, text: str) -> None:
        self.builder.unresolved_site(Unresolved(caller, site, reason, name, text))


def _containers(scope: str) -> list[str]:
    """``A.B.f`` -> ``["A.B.f", "A.B", "A", ""]``."""
    out = []
    current = scope
    while current:
        out.append(current)
        current = current.rpartition(".")[0]
    out.append("")
    return out


def _normal(text: str | None) -> str:
    """A receiver or type as written, with ``.`` for every member or scope separator."""
    parts = [p for p in _SEPARATORS.split(text or "") if p]
    return ".".join(parts)


def _render(template: str, module: str) -> str | None:
    """A path template of a language's imports, filled with a module as written; None: not this form."""
    parts = [p for p in _SEPARATORS.split(module) if p]
    values = {
        "module": module,
        "path": "/".join(parts),
        "path_tail": "/".join(parts[1:]),
        "dashed": "-".join(parts).lower(),
        "package": module.partition("/")[2] if module.startswith("package:") else "",
    }
    for placeholder, value in values.items():
        token = "{" + placeholder + "}"
        if token in template:
            if not value:
                return None
            template = template.replace(token, value)
    return template


def make_linker(indexes: Sequence[FileIndex], builder: GraphBuilder, context: LinkContext) -> GenericLinker:
    return GenericLinker(indexes, builder, context.test_paths)
