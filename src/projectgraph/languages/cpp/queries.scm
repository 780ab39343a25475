; C++ at the generic tier (and C headers): the vocabulary is in projectgraph/languages/generic.py.

; A pattern with a field matches its first child only: bases are patterns of their own, one match
; per base, and the matches of one definition merge.

; Functions and methods with a body; an out-of-class definition (`double Shape::area()`) names its
; class, so its qualified name is the one its declaration in the class has.
(function_definition
  declarator: (function_declarator
    declarator: [(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name)] @name)
  body: (_) @body) @definition.function
(function_definition
  declarator: (pointer_declarator declarator: (function_declarator
    declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name)] @name))
  body: (_) @body) @definition.function
(function_definition
  declarator: (reference_declarator (function_declarator
    declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name)] @name))
  body: (_) @body) @definition.function
(class_specifier name: [(type_identifier) (qualified_identifier)] @name body: (_) @body) @definition.class
(class_specifier (base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @base)
  body: (_)) @definition.class
(struct_specifier name: [(type_identifier) (qualified_identifier)] @name body: (_) @body) @definition.struct
(struct_specifier (base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @base)
  body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_) @body) @definition.union
(enum_specifier name: (type_identifier) @name body: (_) @body) @definition.enum
(type_definition type: (struct_specifier !name body: (_)) declarator: (type_identifier) @name) @definition.struct
(type_definition type: (enum_specifier !name body: (_)) declarator: (type_identifier) @name) @definition.enum
(preproc_function_def name: (identifier) @name) @definition.macro
(namespace_definition name: (_) @name body: (_) @body) @scope

(call_expression function: (identifier) @call.name) @call
(call_expression function: (qualified_identifier
  name: [(identifier) (template_function)] @call.name) @call.callee) @call
(call_expression function: (qualified_identifier
  name: (qualified_identifier name: [(identifier) (template_function)] @call.name)) @call.callee) @call
(call_expression function: (qualified_identifier
  name: (qualified_identifier
    name: (qualified_identifier name: [(identifier) (template_function)] @call.name))) @call.callee) @call
(call_expression function: (field_expression field: (_) @call.name) @call.callee) @call
(call_expression function: (template_function name: (identifier) @call.name)) @call
(call_expression function: (parenthesized_expression) @call.member) @call
(new_expression type: (type_identifier) @call.name) @call.new
; `Circle c(2.0);` / `Circle c{2.0};` construct an object too
(declaration type: (type_identifier) @call.name
  declarator: (init_declarator value: [(argument_list) (initializer_list)])) @call.new
(declaration type: (qualified_identifier name: (type_identifier) @call.name) @call.callee
  declarator: (init_declarator value: [(argument_list) (initializer_list)])) @call.new
(new_expression type: (qualified_identifier name: (_) @call.name) @call.callee) @call.new

(preproc_include path: (_) @import.module) @import.include
(using_declaration "namespace" (_) @import.module) @import.using

(comment) @comment
