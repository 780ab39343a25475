; C# at the generic tier: the vocabulary is in projectgraph/languages/generic.py.

(namespace_declaration name: (_) @name body: (_) @body) @scope
(class_declaration name: (identifier) @name body: (_) @body) @definition.class
(struct_declaration name: (identifier) @name body: (_) @body) @definition.struct
(interface_declaration name: (identifier) @name body: (_) @body) @definition.interface
(record_declaration name: (identifier) @name) @definition.record
; one match per base; the matches of one definition merge
(class_declaration (base_list (_) @base)) @definition.class
(struct_declaration (base_list (_) @base)) @definition.struct
(interface_declaration (base_list (_) @base)) @definition.interface
(record_declaration (base_list (_) @base)) @definition.record
(enum_declaration name: (identifier) @name body: (_) @body) @definition.enum
(method_declaration name: (identifier) @name body: (_)? @body) @definition.function
(constructor_declaration name: (identifier) @name body: (_)? @body) @definition.constructor
(destructor_declaration name: (identifier) @name body: (_)? @body) @definition.function
(local_function_statement name: (identifier) @name body: (_)? @body) @definition.function

(invocation_expression function: (identifier) @call.name) @call
(invocation_expression function: (generic_name (identifier) @call.name)) @call
(invocation_expression function: (member_access_expression
  name: [(identifier) (generic_name (identifier))] @call.name) @call.callee) @call
(invocation_expression function: (conditional_access_expression
  (member_binding_expression name: [(identifier) (generic_name (identifier))] @call.name)) @call.callee) @call
(invocation_expression function: [(parenthesized_expression) (invocation_expression) (element_access_expression)]
  @call.member) @call
(object_creation_expression type: [(identifier) (generic_name (identifier))] @call.name) @call.new
(object_creation_expression type: (qualified_name name: (_) @call.name) @call.callee) @call.new

(using_directive name: (identifier) @import.alias [(qualified_name) (identifier)] @import.module) @import.using
(using_directive !name [(qualified_name) (identifier)] @import.module) @import.using

(comment) @comment
