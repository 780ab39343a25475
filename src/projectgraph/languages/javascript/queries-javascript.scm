; JavaScript only (TypeScript names these nodes differently).
(field_definition) @field
(field_definition value: (_) @field.value)
