; R at the generic tier: the vocabulary is in projectgraph/languages/generic.py.

; `f <- function(x) ...`, `f = function(x) ...`, `f <<- function(x) ...`
(binary_operator lhs: [(identifier) (string)] @name rhs: (function_definition)) @definition.function
; S4 and R5 classes: `setClass("Cart", ...)`, `setRefClass("Cart", ...)`, R6 `Cart <- R6Class("Cart", ...)`
(call function: (identifier) @_f arguments: (arguments . (argument value: (string (string_content) @name)))
  (#match? @_f "^(setClass|setRefClass|R6Class)$")) @definition.class
; `setGeneric("area", ...)` / `setMethod("area", "Cart", function(...) ...)`: functions by name
(call function: (identifier) @_f arguments: (arguments . (argument value: (string (string_content) @name)))
  (#match? @_f "^(setGeneric|setMethod)$")) @definition.function

(call function: (identifier) @call.name) @call
(call function: [(extract_operator rhs: (identifier) @call.name) (namespace_operator rhs: (identifier) @call.name)]
  @call.callee) @call
(call function: [(call) (subset) (subset2) (parenthesized_expression) (function_definition)] @call.member) @call

(call function: (identifier) @_f arguments: (arguments . (argument value: [(identifier) (string (string_content))] @import.module))
  (#match? @_f "^(library|require|requireNamespace|loadNamespace)$")) @import.library
(call function: (identifier) @_f arguments: (arguments . (argument value: (string (string_content) @import.module)))
  (#match? @_f "^(source|sys.source)$")) @import.source

(comment) @comment
