#!/usr/bin/env python3
"""The per-case mode of spec/protocol.md: operations on stdin, results on stdout."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python"))
import dispatcher  # noqa: E402

json.dump(dispatcher.run(json.load(sys.stdin)), sys.stdout)
