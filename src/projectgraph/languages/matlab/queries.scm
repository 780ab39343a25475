; MATLAB at the generic tier: the vocabulary is in projectgraph/languages/generic.py.
; A call and an index are one syntax (`f(x)`, `a(1)`): every one is read as a call, and a name the
; project does not define stays an unresolved site.

; the help text is the comment right after the function line
(function_definition name: (identifier) @name . (function_arguments)? . (comment) @doc) @definition.function
(function_definition name: (identifier) @name) @definition.function
(class_definition name: (identifier) @name) @definition.class
(class_definition (superclasses (property_name (identifier) @base))) @definition.class

(function_call name: (identifier) @call.name) @call
(field_expression object: (_) @call.receiver field: (function_call name: (identifier) @call.name) @call)
; a bare name on a line of its own is a call of a function with no arguments
(command (command_name) @call.name) @call

(command (command_name) @_i (command_argument) @import.module (#eq? @_i "import")) @import

(comment) @comment
