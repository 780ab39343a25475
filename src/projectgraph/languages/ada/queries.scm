; Ada at the generic tier: the vocabulary is in projectgraph/languages/generic.py.
; A call and an index or a type conversion are one syntax (`F (X)`): every one is read as a call.

(package_body name: (_) @name) @definition.package
(package_declaration name: (_) @name) @definition.package
(subprogram_body [(function_specification name: (_) @name) (procedure_specification name: (_) @name)])
  @definition.function
(expression_function_declaration (function_specification name: (_) @name)) @definition.function
(task_body . (identifier) @name) @definition.function
(protected_body . (identifier) @name) @definition.type
(full_type_declaration . (identifier) @name (record_type_definition)) @definition.type
(full_type_declaration . (identifier) @name (derived_type_definition subtype_mark: (_) @base)) @definition.type

(function_call name: (identifier) @call.name) @call
(function_call name: (selected_component selector_name: (_) @call.name) @call.callee) @call
(procedure_call_statement name: (identifier) @call.name) @call
(procedure_call_statement name: (selected_component selector_name: (_) @call.name) @call.callee) @call

; `with A.B, C;`: one import per unit named
(with_clause (_) @import.module @import.with)

(comment) @comment
