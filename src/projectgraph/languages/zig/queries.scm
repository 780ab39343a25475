; Zig at the generic tier: the vocabulary is in projectgraph/languages/generic.py.

(Decl (FnProto function: (IDENTIFIER) @name) (Block) @body) @definition.function
(Decl (FnProto function: (IDENTIFIER) @name)) @definition.function
; `const Cart = struct { ... };` (enum, union, opaque alike: a type whose functions are methods)
(VarDecl variable_type_function: (IDENTIFIER) @name
  (ErrorUnionExpr (SuffixExpr (ContainerDecl) @body))) @definition.struct
; `test "name" { }` runs under `zig test`: a function of its own
(TestDecl [(STRINGLITERALSINGLE) (IDENTIFIER)] @name (Block) @body) @definition.test

(SuffixExpr . variable_type_function: (IDENTIFIER) @call.name . (FnCallArguments)) @call
(SuffixExpr (FieldOrFnCall function_call: (IDENTIFIER) @call.name (FnCallArguments)) @call) @call.callee

(SuffixExpr (BUILTINIDENTIFIER) @_b
  (FnCallArguments (ErrorUnionExpr (SuffixExpr (STRINGLITERALSINGLE) @import.module)))
  (#eq? @_b "@import")) @import
(VarDecl variable_type_function: (IDENTIFIER) @import.alias
  (ErrorUnionExpr (SuffixExpr (BUILTINIDENTIFIER) @_b
    (FnCallArguments (ErrorUnionExpr (SuffixExpr (STRINGLITERALSINGLE) @import.module))) (#eq? @_b "@import")) @import))

[(line_comment) (doc_comment) (container_doc_comment)] @comment
