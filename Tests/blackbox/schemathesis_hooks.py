"""schemathesis hooks for test_openapi.py (loaded through SCHEMATHESIS_HOOKS): a CR or LF in a path
parameter becomes `_` before the request is sent. libwebsockets' HTTP parser ends a path at a decoded CR
or LF, so `/api/jobs/a%0Ab` reaches Herald as `/api/jobs/a` (docs/api.md, "What the contract does not
cover"), and the answer would be about another path than the one schemathesis asked for. Every phase's
requests pass here (the coverage phase's do not pass through the generation filters); the values are
already percent-encoded by then.
"""

import re

import schemathesis

LINE_BREAK = re.compile(r"%0[AD]|[\r\n]", re.IGNORECASE)


@schemathesis.hook
def before_call(context, case, kwargs):
    for name, value in list((case.path_parameters or {}).items()):
        if isinstance(value, str) and LINE_BREAK.search(value):
            case.path_parameters[name] = LINE_BREAK.sub("_", value)
