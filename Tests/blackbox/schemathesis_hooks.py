"""schemathesis hooks for test_openapi.py (loaded through SCHEMATHESIS_HOOKS): a CR or LF in a path or
query parameter becomes `_` before the request is sent. libwebsockets' HTTP parser ends a path at a
decoded CR or LF, so `/api/jobs/a%0Ab` reaches Herald as `/api/jobs/a`, and ends the query there too,
dropping every parameter after it (docs/api.md, "What the contract does not cover"): the answer would
be about another request than the one schemathesis made. Every phase's
requests pass here (the coverage phase's do not pass through the generation filters); the values are
already percent-encoded by then.
"""

import re

import schemathesis

LINE_BREAK = re.compile(r"%0[AD]|[\r\n]", re.IGNORECASE)


@schemathesis.hook
def before_call(context, case, kwargs):
    for parameters in (case.path_parameters, case.query):
        for name, value in list((parameters or {}).items()):
            if isinstance(value, str) and LINE_BREAK.search(value):
                parameters[name] = LINE_BREAK.sub("_", value)
            elif isinstance(value, list):
                parameters[name] = [LINE_BREAK.sub("_", item) if isinstance(item, str) else item for item in value]
