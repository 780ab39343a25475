; Every node the Rust extractor reads, in one query run with `matches()`. The extractor dispatches
; on a pattern's *kind*: the one capture of the pattern whose name is a kind of `extract.py`.

; Items: sorted by byte offset, they give qualified names and, through a stack, the scope of every
; other record. An impl block and a trait are scopes (`Type.method`); an inline module too.
(function_item) @def.function
(function_signature_item) @def.signature
(struct_item) @def.struct
(enum_item) @def.enum
(union_item) @def.union
(trait_item) @def.trait
(type_item) @def.type
(mod_item) @def.mod
(impl_item) @def.impl
(macro_definition) @def.macro
(const_item) @const
(static_item) @const

(call_expression function: (_) @function arguments: (_)? @args) @call
(macro_invocation) @macro

(use_declaration) @use
(extern_crate_declaration) @extern

(let_declaration) @let
(let_condition) @letcond
(closure_parameters (parameter) @closure.param)
; a closure in a function is a function of its own (`f$1`, see extract.py)
(closure_expression) @def.closure

; Functions used as values: passed as arguments or stored in struct fields; struct literals.
(arguments (identifier) @ref)
(arguments (scoped_identifier) @ref)
(field_initializer value: (identifier) @ref)
(field_initializer value: (scoped_identifier) @ref)
(struct_expression name: (_) @struct.literal)

(ERROR) @error
