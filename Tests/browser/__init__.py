# A package, so this folder's conftest.py and helpers import as `browser.*` and never shadow the
# `conftest` module of a sibling test folder when pytest runs several folders at once.
