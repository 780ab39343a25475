; Lua at the generic tier: the vocabulary is in projectgraph/languages/generic.py.

; `function f()`, `function M.f()`, `function M:f()`, `local function f()`: a dotted name's table
; is its container (`M.f`)
(function_declaration name: (_) @name body: (_)? @body) @definition.function
; `M.f = function() ... end`, `local f = function() ... end`
(assignment_statement (variable_list . name: (_) @name) (expression_list . value: (function_definition)))
  @definition.function

(function_call name: (identifier) @call.name) @call
(function_call name: (dot_index_expression field: (identifier) @call.name) @call.callee) @call
(function_call name: (method_index_expression method: (identifier) @call.name) @call.callee) @call
(function_call name: [(parenthesized_expression) (bracket_index_expression) (function_call)] @call.member) @call

(function_call name: (identifier) @_r arguments: (arguments . (string content: (string_content) @import.module))
  (#match? @_r "^(require|dofile|loadfile)$")) @import.require
; `local util = require("util")`: calls on `util` look in that file
(variable_declaration (assignment_statement (variable_list . name: (identifier) @import.alias)
  (expression_list . value: (function_call name: (identifier) @_r
    arguments: (arguments . (string content: (string_content) @import.module))) @import.require))
  (#eq? @_r "require"))

(comment) @comment
