; Every node the Go extractor reads, in one query run with `matches()`. The extractor dispatches on
; a pattern's *kind*: the one capture of the pattern whose name is a kind of `extract.py` (`package`,
; `def.function`, `call`, `ref`, ...); the other captures are fields, so Python need not look them up.

(package_clause (package_identifier) @name) @package
(import_spec name: (_)? @alias path: (_) @path) @import

; Declarations. Functions, methods and function literals open scopes (see extract.py).
(function_declaration
  name: (identifier) @name
  type_parameters: (_)? @type_parameters
  parameters: (parameter_list) @parameters
  result: (_)? @result
  body: (block)? @body) @def.function
(method_declaration
  receiver: (parameter_list) @receiver
  name: (field_identifier) @name
  parameters: (parameter_list) @parameters
  result: (_)? @result
  body: (block)? @body) @def.method
(source_file (type_declaration (type_spec name: (type_identifier) @name type: (_) @type) @def.type))
(source_file (type_declaration (type_alias name: (type_identifier) @name type: (_) @type) @def.alias))

; Bindings inside functions: what a name holds, for the receivers of later calls.
; a `var` at the top level is a definition, in a function a binding (the extractor tells them apart)
(var_spec) @var
(short_var_declaration left: (expression_list) @left right: (expression_list) @right) @assign
(assignment_statement left: (expression_list) @left right: (expression_list) @right) @assign
(range_clause left: (expression_list) @left right: (_) @right) @range
(type_switch_statement alias: (expression_list) @alias) @typeswitch
(func_literal parameters: (parameter_list) @parameters) @closure
; what a function returns, by position: the values that flow out of its calls
(return_statement) @return

; Calls: `f()`, `pkg.F()`, `x.M()`, chained `a.B().C()`; `F[int](x)` parses as a conversion of a
; generic type; a composite literal `T{}` / `&T{}` makes a value of T (a constructor).
(call_expression function: (_) @function arguments: (argument_list) @args) @call
(type_conversion_expression type: (generic_type) @function) @call.generic
(composite_literal type: [(type_identifier) (qualified_type) (generic_type)] @type) @literal

; Functions and methods used as values: `ref` captures an identifier, `ref.chain` a selector.
(argument_list (identifier) @ref)
(argument_list (selector_expression) @ref.chain)
(literal_value (literal_element (identifier) @ref))
(literal_value (literal_element (selector_expression) @ref.chain))
(keyed_element value: (literal_element (identifier) @ref))
(keyed_element value: (literal_element (selector_expression) @ref.chain))
(return_statement (expression_list (identifier) @ref))
(return_statement (expression_list (selector_expression) @ref.chain))
(send_statement value: (identifier) @ref)
(send_statement value: (selector_expression) @ref.chain)

(ERROR) @error
