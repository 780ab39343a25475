; PHP at the generic tier: the vocabulary is in projectgraph/languages/generic.py.

(namespace_definition name: (_) @name body: (_) @body) @scope
(class_declaration name: (name) @name body: (_) @body) @definition.class
(interface_declaration name: (name) @name body: (_) @body) @definition.interface
; one match per base, interface and used trait; the matches of one definition merge
(class_declaration (base_clause (_) @base)) @definition.class
(class_declaration (class_interface_clause (_) @base)) @definition.class
(interface_declaration (base_clause (_) @base)) @definition.interface
(trait_declaration name: (name) @name body: (_) @body) @definition.trait
(enum_declaration name: (name) @name body: (_) @body) @definition.enum
(function_definition name: (name) @name body: (_) @body) @definition.function
(method_declaration name: (name) @name body: (_)? @body) @definition.function
; `use SomeTrait;` in a class body: the trait's methods are the class's
(class_declaration body: (declaration_list (use_declaration (_) @base))) @definition.class

(function_call_expression function: [(name) (qualified_name)] @call.name) @call
(function_call_expression function: [(variable_name) (parenthesized_expression) (subscript_expression)]
  @call.member) @call
(member_call_expression object: (_) @call.receiver name: (name) @call.name) @call
(nullsafe_member_call_expression object: (_) @call.receiver name: (name) @call.name) @call
(scoped_call_expression scope: (_) @call.receiver name: (name) @call.name) @call
(object_creation_expression [(name) (qualified_name)] @call.name) @call.new

(namespace_use_clause . [(qualified_name) (name)] @import.module alias: (_)? @import.alias) @import.use
(require_expression [(string) (encapsed_string)] @import.module) @import.require
(require_expression (binary_expression right: [(string) (encapsed_string)] @import.module)) @import.require
(require_once_expression [(string) (encapsed_string)] @import.module) @import.require
(require_once_expression (binary_expression right: [(string) (encapsed_string)] @import.module)) @import.require
(include_expression [(string) (encapsed_string)] @import.module) @import.require
(include_expression (binary_expression right: [(string) (encapsed_string)] @import.module)) @import.require
(include_once_expression [(string) (encapsed_string)] @import.module) @import.require
(include_once_expression (binary_expression right: [(string) (encapsed_string)] @import.module)) @import.require

(comment) @comment
