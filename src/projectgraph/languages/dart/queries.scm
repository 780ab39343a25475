; Dart at the generic tier: the vocabulary is in projectgraph/languages/generic.py.
; A function's body is the sibling after its signature: @body makes the definition span both.

(class_definition name: (identifier) @name body: (_) @body) @definition.class
(class_definition superclass: (superclass (type_identifier) @base)) @definition.class
(class_definition superclass: (superclass (mixins (type_identifier) @base))) @definition.class
(class_definition interfaces: (interfaces (type_identifier) @base)) @definition.class
(mixin_declaration (identifier) @name (class_body) @body) @definition.mixin
(enum_declaration name: (identifier) @name body: (_) @body) @definition.enum
(extension_declaration class: (type_identifier) @name body: (_) @body) @scope.extension

(_ (function_signature name: (identifier) @name) @definition.function . (function_body) @body)
(_ (method_signature (function_signature name: (identifier) @name)) @definition.function . (function_body) @body)
(_ (method_signature (getter_signature name: (identifier) @name)) @definition.function . (function_body) @body)
(_ (method_signature (setter_signature name: (identifier) @name)) @definition.function . (function_body) @body)
; a named constructor `Cart.empty()` is `Cart.empty`; the plain one is `Cart.Cart`
(_ (method_signature (constructor_signature (identifier) @name . parameters: (_))) @definition.constructor
  . (function_body) @body)
(_ (method_signature (factory_constructor_signature . (identifier) @name)) @definition.constructor . (function_body) @body)
(declaration (constructor_signature (identifier) @name . parameters: (_))) @definition.constructor
(declaration (function_signature name: (identifier) @name)) @definition.function

; A call is an argument part; its name is the identifier or the `.name` selector just before it.
(_ (identifier) @call.name . (selector (argument_part)) @call)
(_ (selector [(unconditional_assignable_selector (identifier) @call.name)
              (conditional_assignable_selector (identifier) @call.name)])
  @call.member . (selector (argument_part)) @call)
(_ [(identifier) (this)] @call.receiver
  . (selector [(unconditional_assignable_selector (identifier) @call.name)
               (conditional_assignable_selector (identifier) @call.name)])
  . (selector (argument_part)) @call)
(_ (super) @call.receiver . (unconditional_assignable_selector (identifier) @call.name)
  . (selector (argument_part)) @call)
(new_expression (type_identifier) @call.name) @call.new
(const_object_expression (type_identifier) @call.name) @call.new

(library_import (import_specification (configurable_uri (uri (string_literal) @import.module))
  (identifier)? @import.alias)) @import
(library_export (configurable_uri (uri (string_literal) @import.module))) @import.export
(part_directive (uri (string_literal) @import.module)) @import.part

[(comment) (documentation_comment)] @comment
