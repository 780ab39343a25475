"""R at the generic tier: functions bound by ``<-``/``=``/``<<-``, S4/R5/R6 classes and S4 generics
and methods by name, calls (``pkg::f``, ``obj$f``), ``library``/``require`` (packages: no file) and
``source`` of a file (relative to the sourcing file or the project root).
"""

from projectgraph.languages.generic import from_folder

GENERIC, LANGUAGES, extract = from_folder(__name__, __file__)
