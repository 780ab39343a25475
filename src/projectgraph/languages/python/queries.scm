; Every node the Python extractor reads, in one query: the extractor sorts the captures by byte
; offset and rebuilds scopes with a stack, so no Python-side tree walk is needed.
(function_definition) @def.function
(class_definition) @def.class
(call) @call
(decorator (identifier) @decorator.name)
(decorator (attribute) @decorator.name)
(import_statement) @import
(import_from_statement) @import.from
(assignment) @assign
(augmented_assignment) @assign
(if_statement
  condition: (comparison_operator) @guard.condition) @guard
(argument_list (identifier) @ref)
(argument_list (attribute) @ref)
(keyword_argument value: [(identifier) (attribute)] @ref)
(pair value: [(identifier) (attribute)] @ref)
(list [(identifier) (attribute)] @ref)
(tuple [(identifier) (attribute)] @ref)
(set [(identifier) (attribute)] @ref)
(return_statement [(identifier) (attribute)] @ref)
; `raise Error` makes an instance of the class: a use as a value (its __init__ runs)
(raise_statement [(identifier) (attribute)] @ref)
(return_statement) @return
(ERROR) @error
