; Every node the JavaScript/TypeScript extractor reads, in one query per grammar: this part is shared
; by the three grammars; queries-javascript.scm, queries-typescript.scm and queries-jsx.scm add the
; node types only some grammars have. The extractor sorts the captures by byte offset and rebuilds
; scopes with a stack, so no Python-side tree walk is needed.
(function_declaration) @def.function
(generator_function_declaration) @def.function
(function_expression) @def.lambda
(generator_function) @def.lambda
(arrow_function) @def.lambda
(class_declaration) @def.class
(class) @def.class
(method_definition) @def.method
(decorator) @decorator
(variable_declarator) @declare
(assignment_expression) @assign
(augmented_assignment_expression) @assign
(call_expression) @call
(new_expression) @new
(import_statement) @import
(export_statement) @export
(return_statement) @return
(for_in_statement) @forof
(catch_clause parameter: (_) @catch)
(yield_expression) @yield
; names passed as call arguments are read by the call's handler, not captured
(pair value: [(identifier) (member_expression)] @ref)
(array [(identifier) (member_expression)] @ref)
(return_statement [(identifier) (member_expression)] @ref)
(shorthand_property_identifier) @ref
