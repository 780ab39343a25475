; Swift at the generic tier: the vocabulary is in projectgraph/languages/generic.py.

(class_declaration declaration_kind: "class" name: (type_identifier) @name body: (_) @body) @definition.class
(class_declaration declaration_kind: "struct" name: (type_identifier) @name body: (_) @body) @definition.struct
(class_declaration declaration_kind: "enum" name: (type_identifier) @name body: (_) @body) @definition.enum
(class_declaration declaration_kind: "actor" name: (type_identifier) @name body: (_) @body) @definition.class
; `extension Cart { ... }`: its members are the type's
(class_declaration declaration_kind: "extension" name: (user_type (type_identifier) @name) body: (_) @body) @scope.extension
(protocol_declaration name: (type_identifier) @name body: (_) @body) @definition.protocol
; one match per supertype; the matches of one definition merge
(class_declaration (inheritance_specifier inherits_from: (_) @base)) @definition.class
(protocol_declaration (inheritance_specifier inherits_from: (_) @base)) @definition.protocol
(function_declaration name: (simple_identifier) @name body: (_) @body) @definition.function
(protocol_function_declaration name: (simple_identifier) @name) @definition.function
(init_declaration "init" @name body: (_)? @body) @definition.constructor

(call_expression . (simple_identifier) @call.name) @call
(call_expression . (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @call.name))
  @call.callee) @call
(call_expression . [(call_expression) (tuple_expression)] @call.member) @call

(import_declaration (identifier) @import.module) @import

[(comment) (multiline_comment)] @comment
