; TypeScript and TSX only: typed class fields and the declarations that have no JavaScript form.
(public_field_definition) @field
(public_field_definition value: (_) @field.value)
(abstract_class_declaration) @def.class
(interface_declaration) @def.interface
(type_alias_declaration) @def.type
(enum_declaration) @def.enum
(internal_module) @def.namespace
(module) @def.namespace
(method_signature) @def.signature
(abstract_method_signature) @def.signature
(function_signature) @def.signature
