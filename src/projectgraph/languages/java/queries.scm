; Every node the Java extractor reads, in one query run with `matches()`. The extractor dispatches
; on a pattern's *kind*: the one capture of the pattern whose name is a kind of `extract.py`.

; Types and members: sorted by byte offset, they give qualified names and, through a stack, the
; scope of every other record (a constructor is `Type.<init>`).
(class_declaration) @def.class
(interface_declaration) @def.interface
(enum_declaration) @def.enum
(record_declaration) @def.record
(annotation_type_declaration) @def.annotation
(method_declaration) @def.method
(constructor_declaration) @def.constructor
(compact_constructor_declaration) @def.constructor

(method_invocation) @call
(object_creation_expression) @new
(explicit_constructor_invocation) @ctor
(method_reference) @ref.method

(package_declaration) @package
(import_declaration) @import

; Declared types: fields, enum constants, locals, loop and catch variables, resources, patterns.
(field_declaration) @field
(constant_declaration) @field
(enum_constant) @enum.constant
(local_variable_declaration) @local
(enhanced_for_statement) @for
(catch_formal_parameter) @catch
(resource) @resource
(instanceof_expression) @instanceof
(lambda_expression parameters: (formal_parameters (formal_parameter) @lambda.param))
; a lambda in a method is a function of its own (`run$1`, see extract.py)
(lambda_expression) @def.lambda
; what a method returns: a function value it hands out
(return_statement) @return
; a local assigned again: what its declaration put in is not all it holds
(assignment_expression left: (identifier) @name) @reassign

(ERROR) @error
