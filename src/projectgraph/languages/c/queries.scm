; C at the generic tier: the vocabulary is in projectgraph/languages/generic.py.

; Functions with a body (prototypes are declarations: the definition is elsewhere), returning a
; value, a pointer or a pointer to a pointer.
(function_definition
  declarator: (function_declarator declarator: (identifier) @name)
  body: (_) @body) @definition.function
(function_definition
  declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
  body: (_) @body) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  body: (_) @body) @definition.function

(struct_specifier name: (type_identifier) @name body: (_) @body) @definition.struct
(union_specifier name: (type_identifier) @name body: (_) @body) @definition.union
(enum_specifier name: (type_identifier) @name body: (_) @body) @definition.enum
(type_definition type: (struct_specifier !name body: (_)) declarator: (type_identifier) @name) @definition.struct
(type_definition type: (union_specifier !name body: (_)) declarator: (type_identifier) @name) @definition.union
(type_definition type: (enum_specifier !name body: (_)) declarator: (type_identifier) @name) @definition.enum
(preproc_function_def name: (identifier) @name) @definition.macro

(call_expression function: (identifier) @call.name) @call
(call_expression function: (field_expression field: (field_identifier) @call.name) @call.callee) @call
(call_expression function: (parenthesized_expression) @call.member) @call

(preproc_include path: (_) @import.module) @import.include

(comment) @comment
