; Ruby at the generic tier: the vocabulary is in projectgraph/languages/generic.py.

(module name: [(constant) (scope_resolution)] @name) @definition.module
(class name: [(constant) (scope_resolution)] @name (superclass (_) @base)?) @definition.class
(method name: (_) @name body: (_)? @body) @definition.function
(singleton_method name: (_) @name body: (_)? @body) @definition.function

; `include Mod` / `extend Mod` / `prepend Mod`: the module's methods are the class's
(class (body_statement (call method: (identifier) @_m arguments: (argument_list (_) @base))
  (#match? @_m "^(include|extend|prepend)$"))) @definition.class

(call receiver: (_)? @call.receiver method: (_) @call.name) @call

(call method: (identifier) @_f arguments: (argument_list . (string (string_content) @import.module))
  (#eq? @_f "require")) @import.require
(call method: (identifier) @_f arguments: (argument_list . (string (string_content) @import.module))
  (#eq? @_f "require_relative")) @import.require_relative
(call method: (identifier) @_f arguments: (argument_list . (string (string_content) @import.module))
  (#eq? @_f "load")) @import.load

(comment) @comment
