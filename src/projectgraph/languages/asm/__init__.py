"""Assembly at the generic tier: labels as functions (each runs to the next label), ``call``,
``jmp``, branches and conditional jumps to a label, ``.include``/``%include`` of a file.
"""

from projectgraph.languages.generic import from_folder

GENERIC, LANGUAGES, extract = from_folder(__name__, __file__)
