; Scala at the generic tier: the vocabulary is in projectgraph/languages/generic.py.

; bases: one match per type of `extends A with B`; the matches of one definition merge
(class_definition name: (identifier) @name body: (_)? @body) @definition.class
(object_definition name: (identifier) @name body: (_)? @body) @definition.object
(trait_definition name: (identifier) @name body: (_)? @body) @definition.trait
(class_definition extend: (extends_clause [(type_identifier) (generic_type) (stable_type_identifier)] @base)) @definition.class
(object_definition extend: (extends_clause [(type_identifier) (generic_type) (stable_type_identifier)] @base)) @definition.object
(trait_definition extend: (extends_clause [(type_identifier) (generic_type) (stable_type_identifier)] @base)) @definition.trait
(enum_definition name: (identifier) @name body: (_)? @body) @definition.enum
(function_definition name: (identifier) @name body: (_)? @body) @definition.function
(function_declaration name: (identifier) @name) @definition.function

(call_expression function: (identifier) @call.name) @call
(call_expression function: (field_expression field: (identifier) @call.name) @call.callee) @call
(call_expression function: (generic_function function: (identifier) @call.name)) @call
(call_expression function: (generic_function function: (field_expression field: (identifier) @call.name))
  @call.callee) @call
; `f(a)(b)` is one call of f with two parameter lists: the inner call is the one recorded
(call_expression function: (parenthesized_expression) @call.member) @call
(instance_expression (type_identifier) @call.name) @call.new
(instance_expression (generic_type type: (type_identifier) @call.name)) @call.new
; `a max b` calls max on a
(infix_expression left: (_) @call.receiver operator: (identifier) @call.name) @call

; one match per part of the path (`a.b.C`), per selector (`a.{B, C => D}`); they merge
(import_declaration (identifier) @import.module) @import
(import_declaration (namespace_wildcard) @import.star) @import
(import_declaration (namespace_selectors
  [(identifier) @import.name (arrow_renamed_identifier name: (_) @import.name alias: (_) @import.alias)])) @import

[(comment) (block_comment)] @comment
