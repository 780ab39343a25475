"""The Java resolver: packages and imports, class hierarchies, declared types, virtual dispatch.

Types. A simple name resolves as javac does, as far as records show: a type parameter (the
extractor wrote its bound), a member type of an enclosing class or of its supertypes, a class of
the file, a single-type import, a class of the same package, an on-demand import (a package of the
project, or the one external package imported on demand when there is one), then ``java.lang``
(a fixed list of its classes). A qualified name is a member type or a fully qualified name. An
external class is keyed by its package and name: ``java//util//List``.

Receivers: ``this`` and an unqualified call are the enclosing class (then the classes around it);
``super`` its superclass; a local, parameter or field has its declared type; a ``var`` the type of
its initializer; a call its method's return type; ``Type.m()`` is a static call. A few results of
``java.lang`` are known (``System.out`` is a ``java.io.PrintStream``: ``System.out.println`` is
``java//io//PrintStream//println``, the method that runs; ``String`` and ``StringBuilder``
methods that return their own type); any other result of an external method is unknown, and a call
on it is a ``no-dependency-source`` site.

Dispatch (class hierarchy analysis): a call on a receiver of static type ``T`` has a ``member``
edge to the method that ``T`` declares or inherits (an external supertype gives its key: ``T``
extends ``java.lang.Thread``, so ``t.start()`` is ``java//lang//Thread//start``), and a ``cha``
edge to the method each subtype of ``T`` declares or inherits instead. An abstract or interface
method with no body gets no member edge when implementations exist; with none, the site is an
``interface-receiver`` record, and so is a call with more than ``MAX_CHA`` implementations
(none gets an edge; the record keeps the method name, which scopes it). A receiver of an external
type also gets ``cha`` edges to the project's classes that extend or implement it. Two receivers
whose class is known (JLS 15.12.4.4: the method the object's class runs): ``new T().m()`` is ``T``'s
method only; ``this.m()`` or ``m()`` in an instance method ``M`` of ``C`` runs on the objects of
``C`` and its subtypes that the program can make (a concrete class; an abstract class or interface a
``new`` names, since an anonymous body may inherit ``M``; any interface once the project has a lambda
or a method reference) and that inherit ``M`` rather than override it, so ``m`` is the method each of
them runs. A constructor or initializer, a static method, overloads of ``M`` or ``m``, an override
with other parameters or a supertype not known keep the hierarchy's edges. A class refers
to each of its methods that overrides a supertype's (the rule ``override``; an ``@Override`` method
of a class with an external supertype too): what constructs it reaches what external code calls on
it (``run``, ``compare``).

Function values and flow. A lambda is a node of its own (``Main//run$1``, see the extractor); its
method refers to it. A call of the one abstract method of a functional interface (a project
interface's bodiless method, or ``FUNCTIONAL_INTERFACES`` of the JDK: ``Runnable.run``,
``Function.apply``, ...) on a local that holds a lambda or a method reference (``Runnable r = () ->
..``, ``= this::work``, ``= maker()`` where ``maker`` returns one, or on ``maker()`` itself) is an
``assignment`` edge to what it holds (plus the member edge to a JDK interface's method), with no
``cha``; on a parameter, it also gets an edge (kind ``reference``) to each lambda and method
reference on the line of each call the graph links to the parameter's method (the index gives no
argument positions). A local of a project type declared with ``new T()`` (``Shape s = new
Circle()``) dispatches to ``T``'s method only (``member``), not to every override.

A public type or member of the project has its external key as ``Node.external``
(``java//util//List//add`` in the JDK's own sources), so a target by that key finds it.

Constructors: ``new T()`` is a ``direct`` edge to the class (whose node holds the code of field
initializers and initializer blocks) and to ``T.<init>`` when written; an external class's key
stands for its constructor. ``super(..)``/``this(..)`` go to the constructor they name; a class
whose constructors call no ``super(..)`` runs its superclass's class and constructor.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from projectgraph import keys
from projectgraph.fileindex import Assignment, Call, FileIndex, Import, Reference
from projectgraph.graph import Site, Unresolved
from projectgraph.link import core, gates
from projectgraph.link.core import DefInfo, GraphBuilder, LinkContext, Value, module_node, node_for

LANGUAGE = "java"
MAX_CHA = 64
_TYPE_KINDS = frozenset(("class", "interface", "enum", "record", "annotation"))
JAVA_LANG = frozenset(
    """AbstractMethodError Appendable ArithmeticException ArrayIndexOutOfBoundsException
    ArrayStoreException AssertionError AutoCloseable Boolean BootstrapMethodError Byte Character
    CharSequence Class ClassCastException ClassCircularityError ClassFormatError ClassLoader
    ClassNotFoundException ClassValue CloneNotSupportedException Cloneable Comparable Deprecated
    Double Enum EnumConstantNotPresentException Error Exception ExceptionInInitializerError Float
    FunctionalInterface IllegalAccessError IllegalAccessException IllegalArgumentException
    IllegalCallerException IllegalMonitorStateException IllegalStateException
    IllegalThreadStateException IncompatibleClassChangeError IndexOutOfBoundsException
    InheritableThreadLocal InstantiationError InstantiationException Integer InternalError
    InterruptedException Iterable LayerInstantiationException LinkageError Long Math Module
    ModuleLayer NegativeArraySizeException NoClassDefFoundError NoSuchFieldError
    NoSuchFieldException NoSuchMethodError NoSuchMethodException NullPointerException Number
    NumberFormatException Object OutOfMemoryError Override Package Process ProcessBuilder
    ProcessHandle Readable Record ReflectiveOperationException Runnable Runtime RuntimeException
    RuntimePermission SafeVarargs SecurityException SecurityManager Short StackOverflowError
    StackTraceElement StackWalker StrictMath String StringBuffer StringBuilder
    StringIndexOutOfBoundsException SuppressWarnings System Thread ThreadDeath ThreadGroup
    ThreadLocal Throwable TypeNotPresentException UnknownError UnsatisfiedLinkError
    UnsupportedClassVersionError UnsupportedOperationException VerifyError VirtualMachineError
    Void""".split()
)
# the well-known classes of the JDK packages most imported on demand (`import java.util.*`)
JDK_PACKAGES = {
    "java.util": frozenset(
        """AbstractList AbstractMap AbstractSet ArrayDeque ArrayList Arrays BitSet Calendar Collection
        Collections Comparator ConcurrentModificationException Date Deque EnumMap EnumSet Enumeration
        EventListener EventObject HashMap HashSet Hashtable IdentityHashMap Iterator LinkedHashMap
        LinkedHashSet LinkedList List ListIterator Locale Map NavigableMap NavigableSet
        NoSuchElementException Objects Optional OptionalDouble OptionalInt OptionalLong PriorityQueue
        Properties Queue Random ResourceBundle Scanner Set SortedMap SortedSet Spliterator Stack
        StringJoiner StringTokenizer Timer TimerTask TimeZone TreeMap TreeSet UUID Vector
        WeakHashMap""".split()
    ),
    "java.util.function": frozenset(
        """BiConsumer BiFunction BiPredicate BinaryOperator BooleanSupplier Consumer DoubleFunction
        Function IntFunction IntPredicate IntSupplier IntUnaryOperator Predicate Supplier ToIntFunction
        ToLongFunction UnaryOperator""".split()
    ),
    "java.util.stream": frozenset("Collector Collectors IntStream LongStream Stream StreamSupport".split()),
    "java.util.concurrent": frozenset(
        """Callable CompletableFuture ConcurrentHashMap ConcurrentLinkedQueue ConcurrentMap CountDownLatch
        CopyOnWriteArrayList CyclicBarrier ExecutionException Executor ExecutorService Executors Future
        LinkedBlockingQueue BlockingQueue ScheduledExecutorService Semaphore ThreadLocalRandom
        ThreadPoolExecutor TimeUnit TimeoutException""".split()
    ),
    "java.io": frozenset(
        """BufferedInputStream BufferedOutputStream BufferedReader BufferedWriter ByteArrayInputStream
        ByteArrayOutputStream Closeable DataInputStream DataOutputStream EOFException File
        FileInputStream FileNotFoundException FileOutputStream FileReader FileWriter IOException
        InputStream InputStreamReader ObjectInputStream ObjectOutputStream OutputStream
        OutputStreamWriter PrintStream PrintWriter Reader Serializable StringReader StringWriter
        UncheckedIOException UnsupportedEncodingException Writer""".split()
    ),
    "java.nio.file": frozenset("Files FileSystem FileSystems Path Paths StandardOpenOption".split()),
    "java.time": frozenset(
        "Clock Duration Instant LocalDate LocalDateTime LocalTime ZoneId ZonedDateTime".split()
    ),
    "java.util.regex": frozenset("Matcher Pattern PatternSyntaxException".split()),
    "java.net": frozenset("HttpURLConnection InetAddress Socket ServerSocket URI URL URLConnection".split()),
    "java.math": frozenset("BigDecimal BigInteger MathContext RoundingMode".split()),
}
OBJECT_METHODS = frozenset("toString equals hashCode getClass notify notifyAll wait clone finalize".split())
ENUM_METHODS = frozenset("name ordinal compareTo values valueOf describeConstable getDeclaringClass".split())
# results of java.lang that are known: a method (or field) key -> the type it gives
KNOWN_RESULTS = {
    "java//lang//System//out": "java//io//PrintStream",
    "java//lang//System//err": "java//io//PrintStream",
    "java//lang//System//in": "java//io//InputStream",
    "java//lang//Thread//currentThread": "java//lang//Thread",
    "java//lang//Runtime//getRuntime": "java//lang//Runtime",
    "java//lang//Enum//name": "java//lang//String",
    "java//lang//Class//getName": "java//lang//String",
    "java//lang//Class//getSimpleName": "java//lang//String",
    "java//lang//Throwable//getMessage": "java//lang//String",
    "java//lang//String//valueOf": "java//lang//String",
}
_SELF_RETURNING = {
    "java//lang//String": frozenset(
        """trim strip stripLeading stripTrailing substring toLowerCase toUpperCase replace replaceAll
        replaceFirst concat format valueOf repeat formatted intern join indent translateEscapes""".split()
    ),
    "java//lang//StringBuilder": frozenset("append insert reverse delete deleteCharAt replace".split()),
    "java//lang//StringBuffer": frozenset("append insert reverse delete deleteCharAt replace".split()),
}
# methods an unknown receiver far more likely calls on a JDK object than on a project's: no name edge
COMMON_METHODS = frozenset(
    """get set add put remove size isEmpty contains containsKey toString equals hashCode iterator next
    hasNext close length append println print format stream map filter collect forEach of apply
    accept test run call compareTo getClass clear addAll keySet values entrySet getKey getValue
    trim split substring startsWith endsWith indexOf charAt valueOf parseInt read write flush
    build start join getName getMessage printStackTrace orElse isPresent ifPresent asList sort
    toArray copyOf max min lock unlock await signal submit execute shutdown""".split()
)


class _Ty(NamedTuple):
    """A receiver: an instance of a type, or the type itself for a static call."""

    value: Value  # def (a type of the project) or ext (an external type's key)
    static: bool = False


_EXTERN = _Ty(Value("extern", ""))

# the functional interfaces of the JDK a lambda is most often given as, with their one abstract
# method: a call of it on a local that holds a lambda runs the lambda
FUNCTIONAL_INTERFACES: dict[str, str] = {
    "java//lang//Runnable": "run",
    "java//util//concurrent//Callable": "call",
    "java//util//Comparator": "compare",
    **{f"java//util//function//{name}": method for name, method in (
        ("Supplier", "get"), ("Consumer", "accept"), ("BiConsumer", "accept"), ("Function", "apply"),
        ("BiFunction", "apply"), ("UnaryOperator", "apply"), ("BinaryOperator", "apply"),
        ("Predicate", "test"), ("BiPredicate", "test"), ("IntFunction", "apply"),
        ("IntPredicate", "test"), ("IntConsumer", "accept"), ("IntSupplier", "getAsInt"),
        ("IntUnaryOperator", "applyAsInt"), ("IntBinaryOperator", "applyAsInt"),
        ("ToIntFunction", "applyAsInt"), ("LongSupplier", "getAsLong"), ("BooleanSupplier", "getAsBoolean"),
    )},
}  # fmt: skip


_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_INSTANCE = re.compile(r"\([A-Za-z_$][\w$.]*\)")  # a receiver `(T)`: `new T()`, a cast, a literal


def _outer(scope: str) -> str:
    """The scope around one: a lambda's method (``A.run$1`` -> ``A.run``), else the parent."""
    head, _, last = scope.rpartition(".")
    return scope.rpartition("$")[0] if "$" in last else head


@dataclass
class _File:
    index: FileIndex
    package: str = ""
    defs: dict[str, DefInfo] = field(default_factory=dict)
    single: dict[str, str] = field(default_factory=dict)  # simple name -> qualified name
    on_demand: list[str] = field(default_factory=list)
    static_single: dict[str, list[str]] = field(default_factory=dict)  # member -> class names
    static_on_demand: list[str] = field(default_factory=list)
    assigns: dict[tuple[str, str], list[Assignment]] = field(default_factory=dict)
    params: dict[str, dict[str, str | None]] = field(default_factory=dict)  # method -> name -> type
    overloaded: set[str] = field(default_factory=set)  # qualnames that several methods share

    @property
    def path(self) -> str:
        return self.index.path


class JavaLinker:
    languages = (LANGUAGE,)

    def __init__(self, indexes: Iterable[FileIndex], builder: GraphBuilder, context: LinkContext) -> None:
        self.builder = builder
        self.max_hops = context.max_hops
        self.files: dict[str, _File] = {}
        self.defs: dict[str, DefInfo] = {}
        self._guesses = gates.MethodGuesses(self.defs.values(), COMMON_METHODS)
        self.fqn: dict[str, DefInfo] = {}  # a.b.Outer.Inner -> type
        self.packages: dict[str, dict[str, DefInfo]] = {}  # package -> top-level name -> type
        for index in sorted(indexes, key=lambda i: i.path):
            if index.language != LANGUAGE:
                continue
            jfile = _File(index)
            self.files[index.path] = jfile
            for imp in index.imports:
                self._add_import(jfile, imp)
            for d in index.definitions:
                info = DefInfo(keys.first_party(index.path, d.qualname), index.path, d, LANGUAGE)
                if d.qualname in jfile.defs:
                    jfile.overloaded.add(d.qualname)
                jfile.defs.setdefault(d.qualname, info)
                self.defs.setdefault(info.key, info)
                if d.params:
                    table = jfile.params.setdefault(d.qualname, {})
                    for param in d.params:
                        table.setdefault(param.name, param.type)
                if d.kind in _TYPE_KINDS:
                    qualified = f"{jfile.package}.{d.qualname}" if jfile.package else d.qualname
                    self.fqn.setdefault(qualified, info)
                    if "." not in d.qualname:
                        self.packages.setdefault(jfile.package, {}).setdefault(d.name, info)
            for a in index.assignments:
                jfile.assigns.setdefault((a.scope, a.target), []).append(a)
        self._bases_cache: dict[str, list[tuple[str, Value]]] = {}
        self._unknown_bases: set[str] = set()
        self._frozen = False  # every type's bases are known: the hierarchy caches may fill
        self._ancestors_cache: dict[str, list[str]] = {}
        self._method_cache: dict[tuple[str, str], DefInfo | str | None] = {}
        self._subtypes_cache: dict[tuple[str, bool], list[str]] = {}
        self._overrides_cache: dict[tuple[str, str, str], list[str]] = {}
        # calls of a functional parameter: (file, the scope whose parameter, caller, site)
        self._parameter_calls: list[tuple[_File, str, str, Site]] = []
        self._type_cache: dict[tuple[str, str, str], Value | None] = {}
        self._subtypes: dict[str, list[str]] | None = None
        self._ext_subtypes: dict[str, list[str]] | None = None
        self._depth = 0
        self._anonymous_bases: set[str] | None = None  # simple names that a `new` makes
        self._makes_functions = False  # a lambda or a method reference exists in the project
        self._super_called: set[str] = set()  # names of the methods a super.m() calls

    def _add_import(self, jfile: _File, imp: Import) -> None:
        if imp.kind == "package":
            jfile.package = imp.module
        elif imp.kind == "import":
            if imp.star:
                jfile.on_demand.append(imp.module)
            elif imp.name:
                jfile.single.setdefault(imp.name, f"{imp.module}.{imp.name}")
        elif imp.kind == "static":
            if imp.star:
                jfile.static_on_demand.append(imp.module)
            elif imp.name:
                jfile.static_single.setdefault(imp.name, []).append(imp.module)

    # ---- the whole run -------------------------------------------------------------------------
    def link(self) -> None:
        for path, jfile in self.files.items():
            self.builder.node(module_node(path, LANGUAGE))
            for info in jfile.defs.values():
                self.builder.node(node_for(info))
        for key in sorted(self.defs):
            if self.defs[key].definition.kind in _TYPE_KINDS:
                self._bases(key)
        self._frozen = True
        # a public member stands for the key another project writes for it: java//util//List//add
        for jfile in self.files.values():
            for qualname, info in jfile.defs.items():
                if self._public_chain(jfile, qualname):
                    node = self.builder.nodes.get(info.key)
                    if node is not None and not node.external:
                        external = keys.join(keys.external(jfile.package, LANGUAGE), *qualname.split("."))
                        self.builder.nodes[info.key] = node._replace(external=external)
        for jfile in self.files.values():
            for info in jfile.defs.values():
                if info.definition.kind in _TYPE_KINDS:
                    self._class_edges(jfile, info)
            for call in jfile.index.calls:
                self._call(jfile, call)
            for ref in jfile.index.references:
                self._reference(jfile, ref)
        # a call of a functional parameter runs what the calls of its method pass (found once every
        # call is linked): an edge (kind reference) to each lambda and method reference on their line
        for jfile, param_scope, caller, site in self._parameter_calls:
            owner = jfile.defs.get(param_scope)
            for target in self._passed.get(owner.key, ()) if owner is not None else ():
                self.builder.edge(caller, target, "calls", "reference", site)

    def _public_chain(self, jfile: _File, qualname: str) -> bool:
        """Whether a definition and every type around it are public (or protected): no local class."""
        parts = qualname.split(".")
        for end in range(1, len(parts) + 1):
            info = jfile.defs.get(".".join(parts[:end]))
            if info is None or not info.definition.exported:
                return False
            if end < len(parts) and info.definition.kind not in _TYPE_KINDS:
                return False
        return True

    def _caller(self, jfile: _File, scope: str) -> str:
        return core.enclosing_key(jfile.defs, jfile.path, scope)

    # ---- types ---------------------------------------------------------------------------------
    def resolve_type(self, jfile: _File, scope: str, text: str) -> Value | None:
        """The type a written name stands for in ``scope``: a definition or an external key."""
        cache_key = (jfile.path, scope, text)
        if cache_key in self._type_cache:
            return self._type_cache[cache_key]
        self._type_cache[cache_key] = None  # a cycle through bases stops here
        found = self._resolve_type(jfile, scope, text)
        self._type_cache[cache_key] = found
        return found

    def _resolve_type(self, jfile: _File, scope: str, text: str) -> Value | None:
        parts = text.split(".")
        value = self._simple_type(jfile, scope, parts[0])
        rest = parts[1:]
        if value is None:
            # a fully qualified name: the longest prefix that names a type of the project
            for cut in range(len(parts), 0, -1):
                info = self.fqn.get(".".join(parts[:cut]))
                if info is not None:
                    value, rest = Value("def", info.key), parts[cut:]
                    break
            else:
                if len(parts) > 1 and parts[0][:1].islower():
                    cut = next((i for i, p in enumerate(parts) if p[:1].isupper()), len(parts) - 1)
                    return Value(
                        "ext", keys.join(keys.external(".".join(parts[:cut]), LANGUAGE), *parts[cut:])
                    )
                return None
        for part in rest:
            value = self._member_type(value, part)
            if value is None:
                return None
        return value

    def _member_type(self, value: Value, name: str) -> Value | None:
        if value.kind == "ext":
            return Value("ext", keys.join(value.key, name))
        info = self.defs[value.key]
        for owner in self._ancestors(info.key):
            owner_info = self.defs[owner]
            nested = self.files[owner_info.path].defs.get(f"{owner_info.qualname}.{name}")
            if nested is not None and nested.definition.kind in _TYPE_KINDS:
                return Value("def", nested.key)
        return None

    def _simple_type(self, jfile: _File, scope: str, name: str) -> Value | None:
        # member types of the enclosing types (and of their supertypes), innermost first
        current = scope
        while current:
            info = jfile.defs.get(current)
            if info is not None and info.definition.kind in _TYPE_KINDS:
                if info.definition.name == name:
                    return Value("def", info.key)
                nested = self._member_type(Value("def", info.key), name)
                if nested is not None:
                    return nested
            local = jfile.defs.get(f"{current}.{name}")
            if local is not None and local.definition.kind in _TYPE_KINDS:
                return Value("def", local.key)
            current = current.rpartition(".")[0]
        top = jfile.defs.get(name)
        if top is not None and top.definition.kind in _TYPE_KINDS:
            return Value("def", top.key)
        qualified = jfile.single.get(name)
        if qualified is not None:
            return self._qualified(qualified)
        same = self.packages.get(jfile.package, {}).get(name)
        if same is not None:
            return Value("def", same.key)
        for package in jfile.on_demand:
            info = self.packages.get(package, {}).get(name) or self.fqn.get(f"{package}.{name}")
            if info is not None:
                return Value("def", info.key)
        if name in JAVA_LANG:
            own = self.packages.get("java.lang", {}).get(name)  # the JDK's own sources
            return Value("def", own.key) if own is not None else Value("ext", f"java//lang//{name}")
        for package in jfile.on_demand:
            if name in JDK_PACKAGES.get(package, ()):
                return Value("ext", keys.join(keys.external(package, LANGUAGE), name))
        # not known: a class of an external package imported on demand, or of a file the index
        # does not hold; which one is a guess, so the name stays unresolved
        return None

    def _qualified(self, qualified: str) -> Value:
        info = self.fqn.get(qualified)
        if info is not None:
            return Value("def", info.key)
        parts = qualified.split(".")
        cut = next((i for i, p in enumerate(parts) if p[:1].isupper()), len(parts) - 1)
        return Value("ext", keys.join(keys.external(".".join(parts[:cut]), LANGUAGE), *parts[cut:]))

    # ---- hierarchy -----------------------------------------------------------------------------
    def _bases(self, cls: str) -> list[tuple[str, Value]]:
        """(relation, base) of a type, in the written order; computed once."""
        cached = self._bases_cache.get(cls)
        if cached is not None:
            return cached
        self._bases_cache[cls] = []
        info = self.defs[cls]
        jfile = self.files[info.path]
        found: list[tuple[str, Value]] = []
        for base in info.definition.bases:
            relation = "extends"
            if base.startswith("implements:"):
                relation, base = "implements", base.removeprefix("implements:")
            value = self.resolve_type(jfile, info.qualname, base)
            if value is None:
                self._unknown_bases.add(cls)
            elif value.key != cls:
                found.append((relation, value))
        self._bases_cache[cls] = found
        return found

    def _complete(self, cls: str) -> bool:
        """Whether every supertype of the type resolved (else what it inherits is unknown)."""
        return not any(owner in self._unknown_bases for owner in self._ancestors(cls))

    def _ancestors(self, cls: str) -> list[str]:
        """The type and its first-party supertypes, breadth first, superclass before interfaces."""
        if self._frozen:
            cached = self._ancestors_cache.get(cls)
            if cached is None:
                cached = self._ancestors_cache[cls] = self._ancestors_uncached(cls)
            return cached
        return self._ancestors_uncached(cls)

    def _ancestors_uncached(self, cls: str) -> list[str]:
        order = [cls]
        index = 0
        while index < len(order) and len(order) < 128:
            for _relation, base in self._bases(order[index]):
                if base.kind == "def" and base.key not in order:
                    order.append(base.key)
            index += 1
        return order

    def _external_ancestors(self, cls: str) -> list[str]:
        found: list[str] = []
        for owner in self._ancestors(cls):
            for _relation, base in self._bases(owner):
                if base.kind == "ext" and base.key not in found:
                    found.append(base.key)
        return found

    def subtypes(self) -> dict[str, list[str]]:
        if self._subtypes is None:
            table: dict[str, list[str]] = {}
            ext: dict[str, list[str]] = {}
            for cls in sorted(k for k, i in self.defs.items() if i.definition.kind in _TYPE_KINDS):
                for _relation, base in self._bases(cls):
                    (table if base.kind == "def" else ext).setdefault(base.key, []).append(cls)
            self._subtypes, self._ext_subtypes = table, ext
        return self._subtypes

    def _all_subtypes(self, cls: str, external: bool = False) -> list[str]:
        key = (cls, external)
        cached = self._subtypes_cache.get(key)
        if cached is None:
            cached = self._subtypes_cache[key] = self._all_subtypes_uncached(cls, external)
        return cached

    def _all_subtypes_uncached(self, cls: str, external: bool) -> list[str]:
        table = self.subtypes()
        assert self._ext_subtypes is not None
        start = (self._ext_subtypes if external else table).get(cls, [])
        return core.subclasses_closure(table, cls, start, 10_000)

    def _declared(self, cls: str, name: str) -> DefInfo | None:
        info = self.defs[cls]
        member = self.files[info.path].defs.get(f"{info.qualname}.{name}")
        if member is not None and member.definition.kind in ("method", "constructor"):
            return member
        return None

    def find_method(self, cls: str, name: str) -> DefInfo | str | None:
        """The method ``name`` a type declares or inherits (a definition), else the key of the
        external supertype's method, else None."""
        if not self._frozen:
            return self._find_method(cls, name)
        key = (cls, name)
        if key not in self._method_cache:
            self._method_cache[key] = self._find_method(cls, name)
        return self._method_cache[key]

    def _find_method(self, cls: str, name: str) -> DefInfo | str | None:
        for owner in self._ancestors(cls):
            member = self._declared(owner, name)
            if member is not None:
                return member
        inherited = self._external_method(cls, name)
        if inherited is not None or not self._complete(cls):
            return inherited
        kind = self.defs[cls].definition.kind
        if kind == "enum" and name in ENUM_METHODS:
            return self._lang_method("Enum", name)
        if name in OBJECT_METHODS:
            return self._lang_method("Object", name)
        return None

    def _lang_method(self, cls: str, name: str) -> DefInfo | str:
        """A method of ``java.lang.Object``/``Enum``: the project's own when it holds java.lang."""
        own = self.packages.get("java.lang", {}).get(cls)
        if own is not None:
            member = self._declared(own.key, name)
            if member is not None:
                return member
        return f"java//lang//{cls}//{name}"

    def _external_method(self, cls: str, name: str) -> str | None:
        """The key of a method a type inherits from an external supertype: its external superclass
        (the nearest), else its one external interface; with several, which one is unknown."""
        for owner in self._ancestors(cls):
            for relation, base in self._bases(owner):
                if (
                    relation == "extends"
                    and base.kind == "ext"
                    and self.defs[owner].definition.kind != "interface"
                ):
                    return keys.join(base.key, name)
        external = self._external_ancestors(cls)
        if len(external) == 1:
            return keys.join(external[0], name)
        return None

    def _class_edges(self, jfile: _File, info: DefInfo) -> None:
        site = Site(jfile.path, info.definition.line, info.definition.column)
        for relation, base in self._bases(info.key):
            target = base.key if base.kind == "def" else self.builder.external(base.key, LANGUAGE)
            self.builder.edge(info.key, target, relation, relation, site)
        # the override rule: the class refers to each method that overrides a supertype's
        ancestors = self._ancestors(info.key)[1:]
        external = bool(self._external_ancestors(info.key))
        prefix = info.qualname + "."
        for qualname, member in jfile.defs.items():
            d = member.definition
            if d.kind != "method" or not qualname.startswith(prefix) or "." in qualname[len(prefix) :]:
                continue
            if "static" in d.decorators:
                continue
            overrides = any(self._declared(a, d.name) is not None for a in ancestors) or (
                external and ("Override" in d.decorators or "java.lang.Override" in d.decorators)
            )
            if overrides:
                self.builder.edge(info.key, member.key, "references", "reference",
                                  Site(jfile.path, d.line, d.column), via="override")  # fmt: skip
        # a class whose constructors call no super(..) runs its superclass's initialization
        superclass = next((b for r, b in self._bases(info.key) if r == "extends"), None)
        if superclass is not None and superclass.kind == "def" and info.definition.kind == "class":
            ctor = f"{info.qualname}.<init>"
            explicit = any(c.scope == ctor and c.callee in ("super", "this") for c in jfile.index.calls)
            if not explicit:
                # the implicit super(): from the constructor, else from the class (at its end, so
                # the site differs from the extends edge's)
                own = jfile.defs.get(ctor)
                if own is not None:
                    at = Site(jfile.path, own.definition.line, own.definition.column)
                    self._construct(own.key, at, superclass.key, "direct")
                else:
                    at = Site(jfile.path, info.definition.end_line, 0)
                    self._construct(info.key, at, superclass.key, "direct")

    def _construct(self, caller: str, site: Site, cls: str, kind: str) -> None:
        self.builder.edge(caller, cls, "calls", kind, site)
        ctor = self._declared(cls, "<init>")
        if ctor is not None:
            self.builder.edge(caller, ctor.key, "calls", kind, site)

    # ---- values --------------------------------------------------------------------------------
    def _enclosing_types(self, jfile: _File, scope: str) -> list[DefInfo]:
        found = []
        current = scope
        while current:
            info = jfile.defs.get(current)
            if info is not None and info.definition.kind in _TYPE_KINDS:
                found.append(info)
            current = current.rpartition(".")[0]
        return found

    def _local(self, jfile: _File, scope: str, name: str, line: int) -> _Ty | bool | None:
        """The type of a local or parameter ``name``; False when none is bound. A lambda
        (``run$1``) sees the names of the methods and lambdas around it."""
        current = scope
        while current:
            info = jfile.defs.get(current)
            if info is not None and info.definition.kind in _TYPE_KINDS:
                break
            assigns = jfile.assigns.get((current, name))
            if assigns:
                best = max(
                    (
                        a
                        for a in assigns
                        if a.line <= line and not a.value.startswith(("holds:", "reassigned:"))
                    ),
                    key=lambda a: a.line,
                    default=None,
                )
                if best is not None:
                    return self._assigned(jfile, current, best)
            params = jfile.params.get(current)
            if params is not None and name in params:  # overloads share a name: any of theirs
                declared = params[name]
                return self._instance(jfile, current, declared) if declared else None
            current = _outer(current)
        return False

    def _held(self, jfile: _File, scope: str, name: str, line: int) -> tuple[list[str], str | None]:
        """The functions a local of a functional type holds (the lambdas and method references its
        last binding before ``line`` names), and the scope whose parameter the name is (None when
        it is a local or nothing)."""
        current = scope
        while current:
            info = jfile.defs.get(current)
            if info is not None and info.definition.kind in _TYPE_KINDS:
                break
            every = jfile.assigns.get((current, name), ())
            assigns = [a for a in every if a.line <= line]
            if assigns:
                if any(a.value == "reassigned:" for a in every):
                    return [], None  # assigned again: its declaration is not all it holds
                last = max(a.line for a in assigns)
                found: list[str] = []
                for a in assigns:
                    if a.line == last and a.value.startswith("holds:"):
                        found += self._function_keys(jfile, current, a.value[6:], a.line)
                    elif a.line == last and a.value.startswith("name:") and a.value.endswith("()"):
                        found += self._returned(jfile, current, a.value[5:-2])
                return found, None
            params = jfile.params.get(current)
            if params is not None and name in params:
                return [], current
            current = _outer(current)
        return [], None

    def _held_types(self, jfile: _File, scope: str, name: str, line: int) -> list[str]:
        """The classes of the objects a local's last binding before ``line`` puts in it (``Shape s
        = new Circle()``), when each is a class of the project with the method set known."""
        current = scope
        while current:
            every = jfile.assigns.get((current, name), ())
            assigns = [a for a in every if a.line <= line]
            if assigns:
                if any(a.value == "reassigned:" for a in every):
                    return []  # assigned again: its declaration is not all it holds
                last = max(a.line for a in assigns)
                found: list[str] = []
                for a in assigns:
                    if a.line == last and a.value.startswith("holds:type:"):
                        value = self.resolve_type(jfile, current, a.value[11:])
                        if value is None or value.kind != "def" or not self._complete(value.key):
                            return []
                        found.append(value.key)
                return found
            if current in jfile.params and name in jfile.params[current]:
                return []
            current = _outer(current)
        return []

    def _returned(self, jfile: _File, scope: str, callee: str) -> list[str]:
        """The functions an unqualified method of the project returns (``return () -> ..``)."""
        if not _NAME.fullmatch(callee):
            return []
        found, _owner = self._unqualified_method(jfile, scope, callee)
        if not isinstance(found, DefInfo):
            return []
        owner_file = self.files[found.path]
        keys_: list[str] = []
        for a in owner_file.assigns.get((found.qualname, "return"), ()):
            if a.value == "other:":
                return []  # a return the records do not name: not all it returns is known
            keys_ += self._function_keys(owner_file, found.qualname, a.value, a.line)
        return keys_

    def _function_keys(self, jfile: _File, scope: str, held: str, line: int) -> list[str]:
        """The keys of a held function: a lambda's node, or the methods a reference names."""
        if held.startswith("lambda:"):
            info = jfile.defs.get(held[7:])
            return [info.key] if info is not None else []
        if held.startswith("ref:"):
            return self._referenced(jfile, scope, held[4:], line)
        return []

    def _functional_method(self, ty: _Ty, name: str) -> bool:
        """Whether ``name`` is the one abstract method of a functional interface ``ty`` (a project
        interface whose method has no body, or a known one of the JDK)."""
        if ty.static:
            return False
        if ty.value.kind == "ext":
            return FUNCTIONAL_INTERFACES.get(ty.value.key) == name
        if ty.value.kind != "def" or self.defs[ty.value.key].definition.kind != "interface":
            return False
        found = self.find_method(ty.value.key, name)
        return isinstance(found, DefInfo) and "abstract" in found.definition.decorators

    @property
    def _passed(self) -> dict[str, list[str]]:
        """The lambdas and method references passed to each method: those referred to on the line
        of a call that the graph links to it (the index gives no argument positions)."""
        cached: dict[str, list[str]] | None = getattr(self, "_passed_cache", None)
        if cached is not None:
            return cached
        refs: dict[tuple[str, str, int], list[str]] = {}
        for jfile in self.files.values():
            for ref in jfile.index.references:
                keys_ = self._function_keys(jfile, ref.scope, ref.name if ref.name.startswith("lambda:")
                                            else f"ref:{ref.name}", ref.line)  # fmt: skip
                if keys_:
                    caller = self._caller(jfile, ref.scope)
                    refs.setdefault((caller, jfile.path, ref.line), []).extend(keys_)
        passed: dict[str, dict[str, None]] = {}
        for edge in self.builder.edges:
            if edge.relation != "calls":
                continue
            functions = refs.get((edge.caller, edge.site.path, edge.site.line))
            if functions:
                slot = passed.setdefault(edge.callee, {})
                for key in functions:
                    if key != edge.callee:
                        slot.setdefault(key, None)
        found = {key: list(values) for key, values in passed.items()}
        self._passed_cache = found
        return found

    def _assigned(self, jfile: _File, scope: str, a: Assignment) -> _Ty | None:
        kind, _, text = a.value.partition(":")
        if kind == "type":
            return self._instance(jfile, scope, text)
        if kind == "name":
            self._depth += 1
            try:
                if self._depth > self.max_hops * 4:
                    return None
                return self._eval(jfile, scope, text, a.line - 1)
            finally:
                self._depth -= 1
        return None

    def _instance(self, jfile: _File, scope: str, text: str) -> _Ty | None:
        value = self.resolve_type(jfile, scope, text)
        return _Ty(value) if value is not None else None

    def _field(self, ty: _Ty, name: str) -> _Ty | None:
        if ty.value.kind == "ext":
            known = KNOWN_RESULTS.get(keys.join(ty.value.key, name))
            return _Ty(Value("ext", known)) if known else _EXTERN
        if ty.value.kind != "def":
            return None
        if name == "length" and not ty.static:
            return None
        for owner in self._ancestors(ty.value.key):
            info = self.defs[owner]
            assigns = self.files[info.path].assigns.get((info.qualname, f"this.{name}"))
            if assigns:
                return self._instance(
                    self.files[info.path], info.qualname, assigns[0].value.removeprefix("type:")
                )
        nested = self._member_type(ty.value, name)
        if nested is not None:
            return _Ty(nested, static=True)
        return None

    def _field_in_scope(self, jfile: _File, scope: str, name: str) -> _Ty | None:
        for info in self._enclosing_types(jfile, scope):
            found = self._field(_Ty(Value("def", info.key)), name)
            if found is not None and not found.static:
                return found
        return None

    def _returns(self, method: DefInfo) -> _Ty | None:
        if not method.definition.returns:
            return None
        scope = method.qualname.rpartition(".")[0]
        return self._instance(self.files[method.path], scope, method.definition.returns[0])

    def _method_result(self, ty: _Ty, name: str) -> _Ty | None:
        if ty is _EXTERN:
            return _EXTERN
        if ty.value.kind == "ext":
            key = keys.join(ty.value.key, name)
            known = KNOWN_RESULTS.get(key)
            if known:
                return _Ty(Value("ext", known))
            if name in _SELF_RETURNING.get(ty.value.key, ()):
                return _Ty(ty.value)
            if name == "toString":
                return _Ty(Value("ext", "java//lang//String"))
            return _EXTERN
        found = self.find_method(ty.value.key, name)
        if isinstance(found, DefInfo):
            return self._returns(found)
        if isinstance(found, str):
            return self._method_result(_Ty(Value("ext", found.rpartition(keys.SEP)[0])), name)
        return None

    def _unqualified_method(
        self, jfile: _File, scope: str, name: str
    ) -> tuple[DefInfo | str | None, str | None]:
        """The method an unqualified call names, and the class whose instance runs it."""
        enclosing = self._enclosing_types(jfile, scope)
        for info in enclosing:
            for owner in self._ancestors(info.key):
                member = self._declared(owner, name)
                if member is not None:
                    return member, info.key
        for owner in jfile.static_single.get(name, ()):
            value = self.resolve_type(jfile, scope, owner) or self._qualified(owner)
            if value.kind == "def":
                imported = self.find_method(value.key, name)
                if imported is not None:
                    return imported, None
            else:
                return keys.join(value.key, name), None
        if not all(self._complete(info.key) for info in enclosing):
            return None, None  # an unknown supertype may give it
        external = []
        for owner in jfile.static_on_demand:
            value = self.resolve_type(jfile, scope, owner) or self._qualified(owner)
            if value.kind == "def":
                member = self._declared(value.key, name)
                if member is not None:
                    return member, None
            else:
                external.append(value.key)
        if len(external) == 1:
            return keys.join(external[0], name), None
        for info in enclosing:  # an external supertype's method, an enum's or Object's
            inherited = self.find_method(info.key, name)
            if inherited is not None:
                return inherited, info.key
        return None, None

    def _eval(self, jfile: _File, scope: str, chain: str, line: int) -> _Ty | None:
        """The receiver a chain stands for (``a.b().c``, ``(T)``, ``this``)."""
        segments = _split_chain(chain)
        if not segments:
            return None
        head = segments[0]
        ty: _Ty | None
        position = 1
        if head.startswith("(") and head.endswith(")"):
            ty = self._instance(jfile, scope, head[1:-1])
        elif head == "this":
            types = self._enclosing_types(jfile, scope)
            ty = _Ty(Value("def", types[0].key)) if types else None
        elif head == "super":
            ty = self._super_of(jfile, scope)
        elif head.endswith("()"):
            found, _owner = self._unqualified_method(jfile, scope, head[:-2])
            ty = self._result_of(found)
        else:
            local = self._local(jfile, scope, head, line)
            if local is not False:
                ty = local if isinstance(local, _Ty) else None
            else:
                ty = self._field_in_scope(jfile, scope, head) or self._static_field(jfile, scope, head)
                if ty is None:
                    # a type (a static call), or a package prefix of a qualified name
                    ty, position = self._type_prefix(jfile, scope, segments)
        while ty is not None and position < len(segments):
            segment = segments[position]
            position += 1
            if segment == "this":  # Outer.this
                ty = _Ty(ty.value)
            elif segment == "super":
                ty = _Ty(ty.value, static=True)
            elif segment == "class" and ty.static:
                ty = _Ty(Value("ext", "java//lang//Class"))
            elif segment.endswith("()"):
                ty = self._method_result(ty, segment[:-2])
            else:
                ty = self._field(ty, segment)
        return ty

    def _static_field(self, jfile: _File, scope: str, name: str) -> _Ty | None:
        """A field that ``import static`` brings: ``import static a.B.FIELD``, ``a.B.*``."""
        owners = list(jfile.static_single.get(name, ())) + jfile.static_on_demand
        for owner in owners:
            value = self.resolve_type(jfile, scope, owner) or self._qualified(owner)
            if value.kind == "def":
                found = self._field(_Ty(value, static=True), name)
                if found is not None and not found.static:
                    return found
        return None

    def _type_prefix(self, jfile: _File, scope: str, segments: list[str]) -> tuple[_Ty | None, int]:
        names: list[str] = []
        for index, segment in enumerate(segments):
            if segment.endswith("()") or segment.startswith("("):
                break
            names.append(segment)
            value = self.resolve_type(jfile, scope, ".".join(names))
            if value is not None and (value.kind == "def" or segment[:1].isupper()):
                return _Ty(value, static=True), index + 1
        return None, len(segments)

    def _super_of(self, jfile: _File, scope: str) -> _Ty | None:
        types = self._enclosing_types(jfile, scope)
        if not types:
            return None
        for relation, base in self._bases(types[0].key):
            if relation == "extends":
                return _Ty(base, static=True)
        return _Ty(Value("ext", "java//lang//Object"), static=True)

    def _result_of(self, found: DefInfo | str | None) -> _Ty | None:
        if isinstance(found, DefInfo):
            return self._returns(found)
        if isinstance(found, str):
            owner, _, name = found.rpartition(keys.SEP)
            return self._method_result(_Ty(Value("ext", owner)), name)
        return None

    # ---- calls ---------------------------------------------------------------------------------
    def _call(self, jfile: _File, call: Call) -> None:
        caller = self._caller(jfile, call.scope)
        site = Site(jfile.path, call.line, call.column)
        if call.new:
            self._new(jfile, caller, site, call)
            return
        if call.name == "<init>":
            self._explicit_constructor(jfile, caller, site, call)
            return
        if call.receiver is None:
            found, owner = self._unqualified_method(jfile, call.scope, call.name)
            if found is None:
                self._unresolved(caller, site, "no-definition", call.name, call.text)
            elif (
                owner is not None
                and isinstance(found, DefInfo)
                and "static" not in found.definition.decorators
            ):
                self._virtual(
                    caller, site, owner, call, found, self._this_classes(jfile, call.scope, owner, call.name)
                )
            else:
                self._edge_to(caller, site, found, "direct")
            return
        if call.receiver == "<expr>":
            self._unknown(caller, site, call, "unknown-receiver")
            return
        if call.super_call:
            self._super_call(jfile, caller, site, call)
            return
        ty = self._eval(jfile, call.scope, call.receiver, call.line)
        if (
            ty is not None
            and ty.value.kind == "def"
            and not ty.static
            and call.text.startswith("new ")
            and _INSTANCE.fullmatch(call.receiver)
            and self._concrete(ty.value.key)
        ):  # `new Animal().speak()`: the object is an Animal, no subclass (JLS 15.9.4)
            found = self.find_method(ty.value.key, call.name)
            if (
                isinstance(found, DefInfo)
                and "abstract" not in found.definition.decorators
                and self._one_signature(ty.value.key, call.name)
            ):
                self._edge_to(caller, site, found, "member")
                return
        if ty is not None and ty.value.kind == "def" and not ty.static and _NAME.fullmatch(call.receiver):
            made = self._held_types(jfile, call.scope, call.receiver, call.line)
            if made:  # `Shape s = new Circle(); s.area()`: the methods of what flows in, not every override
                for cls in made:
                    found = self.find_method(cls, call.name)
                    if found is not None:
                        self._edge_to(caller, site, found, "member")
                return
        if ty is not None and ty is not _EXTERN and self._functional_method(ty, call.name):
            if call.receiver.endswith("()"):  # `maker().get()`: what the method returns
                held, param_scope = self._returned(jfile, call.scope, call.receiver[:-2]), None
            else:
                held, param_scope = self._held(jfile, call.scope, call.receiver, call.line)
            if held:  # `Runnable r = () -> ..; r.run()`: the call runs what r holds
                if ty.value.kind == "ext":
                    key = self.builder.external(keys.join(ty.value.key, call.name), LANGUAGE)
                    self.builder.edge(caller, key, "calls", "member", site)
                for target in held:
                    self.builder.edge(caller, target, "calls", "assignment", site)
                return
            if param_scope is not None:  # a parameter: what the calls of its method pass, later
                self._parameter_calls.append((jfile, param_scope, caller, site))
        if ty is None:
            self._unknown(caller, site, call, "unknown-receiver")
            return
        if ty is _EXTERN:
            self._unresolved(caller, site, "no-dependency-source", call.name, call.text)
            return
        if ty.value.kind == "ext":
            key = self.builder.external(keys.join(ty.value.key, call.name), LANGUAGE)
            self.builder.edge(caller, key, "calls", "direct" if ty.static else "member", site)
            if not ty.static:
                self._external_cha(caller, site, ty.value.key, call)
            return
        found = self.find_method(ty.value.key, call.name)
        if ty.static:
            if found is None:
                self._unresolved(caller, site, "no-definition", call.name, call.text)
            else:
                self._edge_to(caller, site, found, "member")
            return
        bean = self._injected_bean(jfile, call, ty.value.key)
        if bean is not None:
            injected = self.find_method(bean, call.name)
            if injected is not None:
                self._edge_to(caller, site, injected, "spring-inject")
                return
        this = (
            self._this_classes(jfile, call.scope, ty.value.key, call.name)
            if call.receiver == "this"
            else None
        )
        self._virtual(caller, site, ty.value.key, call, found, this)

    def _concrete(self, cls: str) -> bool:
        """Whether ``new T()`` makes a ``T`` (a class that is not abstract, an enum, a record), with
        every supertype known."""
        d = self.defs[cls].definition
        return (
            d.kind in ("class", "enum", "record") and "abstract" not in d.decorators and self._complete(cls)
        )

    def _one_signature(self, cls: str, name: str) -> bool:
        """Whether every method ``name`` that ``cls`` declares or inherits from the project has the
        same parameters: one declaration per type, the same parameter types (else a call may pick an
        overload that the one found does not stand for)."""
        signatures = set()
        for owner in self._ancestors(cls):
            member = self._declared(owner, name)
            if member is not None:
                if member.definition.qualname in self.files[member.path].overloaded:
                    return False
                signatures.add(tuple(p.type for p in member.definition.params))
        return len(signatures) <= 1

    def _made(self, cls: str) -> bool:
        """Whether the program may hold an object whose class is ``cls`` or an anonymous class that
        inherits its methods: a concrete class; an abstract class or interface that a ``new`` names
        (an anonymous class body); an interface when the project has a lambda or a method reference
        (which may implement it)."""
        if self._concrete(cls):
            return True
        d = self.defs[cls].definition
        if d.kind == "interface" and self._makes_functions:
            return True
        assert self._anonymous_bases is not None
        return d.name in self._anonymous_bases

    def _scan_makers(self) -> None:
        """Once: the simple names a ``new`` names, the names ``super.m()`` calls, whether the
        project has a lambda or a method reference."""
        if self._anonymous_bases is not None:
            return
        made: set[str] = set()
        for jfile in self.files.values():
            for c in jfile.index.calls:
                if c.new:
                    made.add(c.callee.rpartition(".")[2])
                elif c.super_call:
                    self._super_called.add(c.name)
            if any(d.kind == "function" for d in jfile.index.definitions) or any(
                "::" in r.name for r in jfile.index.references
            ):
                self._makes_functions = True
        self._anonymous_bases = made

    def _this_classes(self, jfile: _File, scope: str, cls: str, name: str) -> list[str] | None:
        """The classes whose objects can be ``this`` where a call in ``scope`` (a method of ``cls``,
        or a lambda in one) runs: ``cls`` and its subtypes that the program may make and that inherit
        the method rather than override it (JLS 15.12.4.4: the method the object's class runs).
        None when that is not known: a constructor or an initializer (it runs for each subclass),
        a static or overloaded method, an override with other parameters or when a ``super.m()`` of
        its name exists (the override may run it), a supertype unknown, a class where the called
        ``name`` has overloads."""
        while "$" in scope.rpartition(".")[2]:
            scope = _outer(scope)
        method = jfile.defs.get(scope)
        owner = self.defs[cls]
        if (
            method is None
            or method.definition.kind != "method"
            or "static" in method.definition.decorators
            or scope in jfile.overloaded
            or owner.path != jfile.path
            or scope.rpartition(".")[0] != owner.qualname
        ):
            return None
        self._scan_makers()
        signature = tuple(p.type for p in method.definition.params)
        found: list[str] = []
        for sub in [cls, *self._all_subtypes(cls)]:
            if not self._complete(sub):
                return None
            member = self.find_method(sub, method.definition.name)
            if not isinstance(member, DefInfo):
                return None
            if member.key != method.key:
                if method.definition.name in self._super_called:
                    return None  # an override may run this one by super.m(), on its own objects
                if (
                    member.definition.qualname in self.files[member.path].overloaded
                    or tuple(p.type for p in member.definition.params) != signature
                ):
                    return None  # another overload: the subclass may still run this one
                continue  # overridden: this method does not run on its objects
            if self._made(sub):
                found.append(sub)
        if any(not self._one_signature(sub, name) for sub in found):
            return None
        return found or None

    def _injected_bean(self, jfile: _File, call: Call, declared: str) -> str | None:
        """Spring: the one bean class a call on an injected field runs, or None.

        In a Spring bean (a class annotated ``@Component``, ``@Service``, ``@Repository``,
        ``@Controller``, ``@RestController`` or ``@Configuration``), a field of a project interface
        or abstract class declared with no initializer is set by the container (``@Autowired`` on
        it, or a constructor's parameter, injected by type; a call on the field's line in the class
        body is an initializer, which makes it no injected field): it holds the one bean class that is
        of the field's type (the one marked ``@Primary`` when there are several). With no such
        bean, or several and no ``@Primary`` (a ``@Qualifier`` picks one, which the records do not
        show), the call keeps its cha edges."""
        receiver = call.receiver or ""
        name = receiver.removeprefix("this.")
        if not _NAME.fullmatch(name):
            return None
        if receiver == name and self._local(jfile, call.scope, name, call.line) is not False:
            return None  # a local or parameter of that name, not the field
        info = self.defs.get(declared)
        if info is None or not (
            info.definition.kind == "interface" or "abstract" in info.definition.decorators
        ):
            return None
        owner = next(
            (
                t
                for t in self._enclosing_types(jfile, call.scope)
                if (t.definition.qualname, f"this.{name}") in jfile.assigns
            ),
            None,
        )
        if owner is None or not self._spring_bean(owner):
            return None
        fields = jfile.assigns[(owner.definition.qualname, f"this.{name}")]
        if len(fields) != 1 or not fields[0].value.startswith("type:"):
            return None
        declared_at = fields[0].line
        if any(c.scope == owner.definition.qualname and c.line == declared_at for c in jfile.index.calls):
            return None  # an initializer (``= new Impl()``, ``= make()``): the field holds what it makes
        beans = [
            sub
            for sub in self._all_subtypes(declared)
            if self._spring_bean(self.defs[sub])
            and self.defs[sub].definition.kind not in ("interface", "enum", "record", "annotation")
            and "abstract" not in self.defs[sub].definition.decorators
        ]
        if len(beans) > 1:
            beans = [
                b
                for b in beans
                if "Primary" in self.defs[b].definition.decorators
                or "org.springframework.context.annotation.Primary" in self.defs[b].definition.decorators
            ]
        return beans[0] if len(beans) == 1 else None

    def _spring_bean(self, info: DefInfo) -> bool:
        """A class the Spring container makes: a stereotype annotation that is Spring's (written
        qualified, or a simple name in a file that imports from ``org.springframework``)."""
        decorators = info.definition.decorators
        if any(
            d.startswith("org.springframework.") and d.rpartition(".")[2] in _SPRING_STEREOTYPES
            for d in decorators
        ):
            return True
        if not any(d in _SPRING_STEREOTYPES for d in decorators):
            return False
        return any(i.module.startswith("org.springframework") for i in self.files[info.path].index.imports)

    def _edge_to(self, caller: str, site: Site, found: DefInfo | str, kind: str) -> None:
        if isinstance(found, DefInfo):
            self.builder.edge(caller, found.key, "calls", kind, site)
        else:
            self.builder.edge(caller, self.builder.external(found, LANGUAGE), "calls", kind, site)

    def _virtual(
        self,
        caller: str,
        site: Site,
        cls: str,
        call: Call,
        found: DefInfo | str | None,
        this: list[str] | None = None,
    ) -> None:
        """A call on an instance of static type ``cls``: the member and the overrides (cha); on
        ``this``, when the classes of its objects are known, the method each of them runs."""
        name = call.name
        if this:
            runs = [self.find_method(sub, name) for sub in this]
            targets = {t.key: t for t in runs if isinstance(t, DefInfo)}
            if all(isinstance(t, DefInfo) and "abstract" not in t.definition.decorators for t in runs):
                for key in targets:
                    kind = "member" if isinstance(found, DefInfo) and key == found.key else "cha"
                    self.builder.edge(caller, key, "calls", kind, site)
                return
        overrides = self._overrides(cls, name, found.key if isinstance(found, DefInfo) else "")
        abstract = isinstance(found, DefInfo) and "abstract" in found.definition.decorators
        if found is not None and not (abstract and overrides):
            self._edge_to(caller, site, found, "member")
        if len(overrides) > MAX_CHA:
            # more implementations than MAX_CHA: none gets an edge, and the site keeps the name
            # (reach scopes it by the name, as any interface call it cannot enumerate)
            self._unresolved(
                caller, site, "interface-receiver", name, f"{len(overrides)} overrides: {call.text}"
            )
            return
        for target in overrides:
            self.builder.edge(caller, target, "calls", "cha", site)
        if isinstance(found, str):
            return
        if found is None and not overrides:
            if self._is_record_component(cls, name):
                return
            interface = (
                self.defs[cls].definition.kind == "interface"
                or "abstract" in self.defs[cls].definition.decorators
            )
            self._unresolved(
                caller, site, "interface-receiver" if interface else "no-definition", name, call.text
            )
        elif abstract and not overrides:
            self._unresolved(caller, site, "interface-receiver", name, call.text)

    def _overrides(self, cls: str, name: str, declared: str) -> list[str]:
        """The concrete methods ``name`` that the subtypes of ``cls`` run instead of ``declared``."""
        key = (cls, name, declared)
        cached = self._overrides_cache.get(key)
        if cached is not None:
            return cached
        found: list[str] = []
        for sub in self._all_subtypes(cls):
            member = self.find_method(sub, name)
            concrete = isinstance(member, DefInfo) and "abstract" not in member.definition.decorators
            if concrete and isinstance(member, DefInfo) and member.key != declared:
                found.append(member.key)
        cached = self._overrides_cache[key] = list(dict.fromkeys(found))
        return cached

    def _is_record_component(self, cls: str, name: str) -> bool:
        info = self.defs[cls]
        return info.definition.kind == "record" and any(p.name == name for p in info.definition.params)

    def _external_cha(self, caller: str, site: Site, ext: str, call: Call) -> None:
        """The project's implementations of an external type's method."""
        targets = []
        for sub in self._all_subtypes(ext, external=True):
            member = self.find_method(sub, call.name)
            if isinstance(member, DefInfo) and "abstract" not in member.definition.decorators:
                targets.append(member.key)
        targets = list(dict.fromkeys(targets))
        if len(targets) > MAX_CHA:
            self._unresolved(
                caller, site, "interface-receiver", call.name, f"{len(targets)} implementations: {call.text}"
            )
            return
        for target in targets:
            self.builder.edge(caller, target, "calls", "cha", site)

    def _super_call(self, jfile: _File, caller: str, site: Site, call: Call) -> None:
        receiver = call.receiver or "super"
        if receiver == "super":
            base = self._super_of(jfile, call.scope)
        else:  # I.super.m(): the default method of the interface I
            value = self.resolve_type(jfile, call.scope, receiver.removesuffix(".super"))
            base = _Ty(value, static=True) if value is not None else None
        if base is None:
            self._unresolved(caller, site, "unknown-receiver", call.name, call.text)
            return
        if base.value.kind == "ext":
            key = self.builder.external(keys.join(base.value.key, call.name), LANGUAGE)
            self.builder.edge(caller, key, "calls", "member", site)
            return
        found = self.find_method(base.value.key, call.name)
        if found is None:
            self._unresolved(caller, site, "no-definition", call.name, call.text)
        else:
            self._edge_to(caller, site, found, "member")

    def _new(self, jfile: _File, caller: str, site: Site, call: Call) -> None:
        value = self.resolve_type(jfile, call.scope, call.callee)
        if value is None:
            self._unresolved(caller, site, "no-definition", call.name, call.text)
            return
        if value.kind == "ext":
            self.builder.edge(caller, self.builder.external(value.key, LANGUAGE), "calls", "direct", site)
            return
        self._construct(caller, site, value.key, "direct")

    def _explicit_constructor(self, jfile: _File, caller: str, site: Site, call: Call) -> None:
        types = self._enclosing_types(jfile, call.scope)
        if not types:
            return
        if call.callee == "this":
            ctor = self._declared(types[0].key, "<init>")
            if ctor is not None:
                self.builder.edge(caller, ctor.key, "calls", "direct", site)
            return
        base = next((b for r, b in self._bases(types[0].key) if r == "extends"), None)
        if base is None:
            if types[0].key in self._unknown_bases:  # a superclass no import names
                written = types[0].definition.bases[0] if types[0].definition.bases else ""
                self._unresolved(caller, site, "no-definition", written.rsplit(".", 1)[-1], call.text)
            return  # else java.lang.Object's constructor
        if base.kind == "ext":
            self.builder.edge(caller, self.builder.external(base.key, LANGUAGE), "calls", "direct", site)
            return
        self._construct(caller, site, base.key, "direct")

    def _reference(self, jfile: _File, ref: Reference) -> None:
        caller = self._caller(jfile, ref.scope)
        site = Site(jfile.path, ref.line, ref.column)
        for target in (
            self._function_keys(jfile, ref.scope, ref.name, ref.line)
            if ref.name.startswith("lambda:")
            else self._referenced(jfile, ref.scope, ref.name, ref.line)
        ):
            if target not in self.builder.nodes:
                self.builder.external(target, LANGUAGE)
            self.builder.edge(caller, target, "references", "reference", site)

    def _referenced(self, jfile: _File, scope: str, text: str, line: int) -> list[str]:
        """The keys a method reference ``Owner::m`` names (the method and its overrides; for
        ``::new`` the class and its constructor; an external key for an external type)."""
        owner, _, member = text.rpartition("::")
        if owner in ("this", "super"):
            ty = self._eval(jfile, scope, owner, line)
        else:
            value = self.resolve_type(jfile, scope, owner)
            ty = _Ty(value, static=True) if value is not None else self._eval(jfile, scope, owner, line)
        if ty is None or ty is _EXTERN:
            return []
        if member == "new":
            if ty.value.kind != "def":
                return []
            ctor = self._declared(ty.value.key, "<init>")
            return [ty.value.key] + ([ctor.key] if ctor is not None else [])
        if ty.value.kind == "ext":
            return [keys.join(ty.value.key, member)]
        declared = self.find_method(ty.value.key, member)
        targets = [declared.key] if isinstance(declared, DefInfo) else []
        for sub in self._all_subtypes(ty.value.key)[:MAX_CHA]:
            override = self._declared(sub, member)
            if override is not None:
                targets.append(override.key)
        return list(dict.fromkeys(targets))

    def _unknown(self, caller: str, site: Site, call: Call, reason: str) -> None:
        self._unresolved(caller, site, reason, call.name, call.text)
        self._guesses.edges(self.builder, caller, site, call.name)

    def _unresolved(self, caller: str, site: Site, reason: str, name: str, text: str) -> None:
        self.builder.unresolved_site(Unresolved(caller, site, reason, name, text))


_SEGMENT = re.compile(r"\([^()]*\)|[^.()]+(?:\(\))?")


# the framework edge kinds this linker makes, with what the framework does (the README's table)
EDGE_KINDS: dict[str, str] = {
    "spring-inject": "a call on a Spring bean's injected field runs the one bean class of the field's type",
}
_SPRING_STEREOTYPES = frozenset(
    {"Component", "Service", "Repository", "Controller", "RestController", "Configuration"}
)


def _split_chain(chain: str) -> list[str]:
    """``a.b().(T)`` -> ``["a", "b()", "(T)"]``: dots inside ``(T)`` stay."""
    return _SEGMENT.findall(chain)


def make_linker(indexes: Sequence[FileIndex], builder: GraphBuilder, context: LinkContext) -> JavaLinker:
    return JavaLinker(indexes, builder, context)
