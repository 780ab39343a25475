; Kotlin at the generic tier: the vocabulary is in projectgraph/languages/generic.py.

(class_declaration "interface" (type_identifier) @name
  (class_body)? @body) @definition.interface
(class_declaration "class" (type_identifier) @name
  [(class_body) (enum_class_body)]? @body) @definition.class
(object_declaration (type_identifier) @name
  (class_body)? @body) @definition.object
(function_declaration (simple_identifier) @name (function_body)? @body) @definition.function
; one match per supertype; the matches of one definition merge
(class_declaration (delegation_specifier [(user_type) @base (constructor_invocation (user_type) @base)])) @definition.class
(object_declaration (delegation_specifier [(user_type) @base (constructor_invocation (user_type) @base)])) @definition.object
; constructors: `constructor(...)` and `init { }` blocks run when the class is constructed
(secondary_constructor "constructor" @name) @definition.constructor
(anonymous_initializer "init" @name) @definition.constructor

(call_expression . (simple_identifier) @call.name) @call
(call_expression . (navigation_expression (navigation_suffix (simple_identifier) @call.name) .) @call.callee) @call
(call_expression . [(call_expression) (parenthesized_expression) (indexing_expression)] @call.member) @call
(constructor_invocation (user_type (type_identifier) @call.name .)) @call
(constructor_delegation_call "super" @call.receiver) @call

(import_header (identifier) @import.module (wildcard_import)? @import.star (import_alias (type_identifier) @import.alias)?) @import

[(line_comment) (multiline_comment)] @comment
