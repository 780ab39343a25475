"""MATLAB at the generic tier: functions (help text as doc), ``classdef`` classes with their
superclasses and methods, calls (an index ``a(1)`` reads as a call), ``obj.f()``, ``import``.
"""

from projectgraph.languages.generic import from_folder

GENERIC, LANGUAGES, extract = from_folder(__name__, __file__)
