# The class package's pure parts, tested with pytest (class/tests; internal/classroom's
# TestClassPackage runs them): python -m pytest class/tests, from the checkout, with class/ on
# PYTHONPATH.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
