; Every node the Python extractor reads, in one query run with `matches()`. The extractor dispatches
; on a pattern's *kind*: the one capture of the pattern whose name is a kind of `extract.py`
; (`def.function`, `call`, `ref`, ...); the other captures are fields, so Python need not look them up.

; Definitions: sorted by byte offset, they give qualified names and, through a stack, the scope of
; every other record. A module-level `name = lambda: ...` is a definition too.
; Fields a definition always has are required (an optional capture costs the query more); the
; negated-field patterns catch what error recovery left without one.
(function_definition
  name: (_) @name
  parameters: (_) @parameters
  return_type: (_)? @return_type
  body: (_) @body) @def.function
(function_definition !name) @def.function
(function_definition !parameters) @def.function
(function_definition !body) @def.function
(class_definition
  name: (_) @name
  superclasses: (_)? @superclasses
  body: (_) @body) @def.class
(class_definition !name) @def.class
(class_definition !body) @def.class
(assignment left: (_) @left right: (lambda) @right) @def.lambda
(decorated_definition definition: (_) @decorated)

; Calls: the callee is read from the source text before the arguments.
(call arguments: (argument_list) @args) @call
(call arguments: (generator_expression) @gen) @call
(call !arguments) @call
(decorator [(identifier) (attribute)] @decorator)

(import_statement) @import
(import_from_statement) @import.from

(assignment left: (_) @left type: (_)? @type right: (_)? @right) @assign
(augmented_assignment) @assign.augmented

(if_statement condition: (comparison_operator) @condition) @guard

; Functions and classes used as values: `ref` captures an identifier, `ref.chain` an attribute.
(argument_list (identifier) @ref)
(argument_list (attribute) @ref.chain)
(keyword_argument value: (identifier) @ref)
(keyword_argument value: (attribute) @ref.chain)
(pair value: (identifier) @ref)
(pair value: (attribute) @ref.chain)
(list (identifier) @ref)
(list (attribute) @ref.chain)
(tuple (identifier) @ref)
(tuple (attribute) @ref.chain)
(set (identifier) @ref)
(set (attribute) @ref.chain)
(return_statement (identifier) @ref)
(return_statement (attribute) @ref.chain)
; `raise Error` makes an instance of the class: a use as a value (its __init__ runs)
(raise_statement (identifier) @ref)
(raise_statement (attribute) @ref.chain)
; `raise Error` makes an instance of the class: a use as a value (its __init__ runs)
(raise_statement (identifier) @ref)
(raise_statement (attribute) @ref.chain)

(return_statement) @return
(ERROR) @error

; What Python calls with no call written (see extract.py, _implicit): `with` runs the __enter__ and
; __exit__ of its item's value, `for` (a statement or a comprehension's clause) the __iter__ of
; what it iterates, `raise Error` makes an instance of the class, `a + b` runs a.__add__ or
; b.__radd__, `a[k]` runs a.__getitem__ (a.__setitem__ as an assignment's target).
(with_item value: (_) @value) @with
(for_statement left: (_) @left right: (_) @right) @for
(for_in_clause left: (_) @left right: (_) @right) @for
(raise_statement . [(identifier) (attribute)] @raised) @raise
(binary_operator left: (_) @left operator: _ @operator right: (_) @right) @operator.binary
(subscript value: (_) @value) @subscript
; Formatting runs a conversion method of each value formatted: `f"{x}"`, `"{}".format(x)`.
(interpolation) @interpolation
(call function: (attribute object: (string) @template attribute: (identifier) @method)
  arguments: (argument_list) @args) @format.call
; An attribute read: what is not a call's callee nor an assignment's target (a property runs).
(attribute) @read
