#!/usr/bin/env python3
"""Plant known bugs in a copy of the reference, one at a time, and count the conformance cases
that catch each. Usage: python3 harness/mutation/planted_bugs.py  (from the repository root).

Each bug is a list of (file, old text, new text) edits on src/. A bug no case catches makes the
script exit 1. It builds in target/planted (kept between runs, so only the first build is slow).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

BUGS = {
    "first wait is 60 s": [
        ("src/dispatcher/policy.rs", "first_wait: 30,", "first_wait: 60,"),
    ],
    "a 7th attempt is made": [
        ("src/dispatcher/policy.rs", "max_attempts: 6,", "max_attempts: 7,"),
    ],
    "no per-endpoint ordering": [
        # Every pending event is ready at once, not only each endpoint's head.
        ("src/dispatcher/mod.rs", "if ep.pending.len() == 1 && !ep.disabled {", "if !ep.disabled {"),
        ("src/dispatcher/process.rs",
         "let popped = self.endpoints[endpoint.index()].pending.pop_front();\n"
         "        debug_assert_eq!(\n            popped,\n            Some(key),\n"
         "            \"only an endpoint's head is ever attempted\"\n        );\n"
         "        self.schedule_head(endpoint);",
         "self.endpoints[endpoint.index()].pending.retain(|k| *k != key);"),
    ],
    "a replayed event keeps its attempt count": [
        ("src/dispatcher/pause.rs", "event.attempts = 0;", ""),
    ],
    "retry due from the previous due time, not the call": [
        ("src/dispatcher/process.rs",
         "Outcome::RetryAt(ts.saturating_add(self.policy.wait_after(number)))",
         "Outcome::RetryAt(event.due_at().unwrap_or(ts).saturating_add(self.policy.wait_after(number)))"),
    ],
    "408 is permanent": [
        ("src/dispatcher/outcome.rs", "0 | 408 | 429 | 500..=599", "0 | 429 | 500..=599"),
    ],
    "enable keeps old due times": [
        ("src/dispatcher/pause.rs",
         "self.events[key.index()].lifecycle = Lifecycle::Pending { due_at: ts };",
         "if !matches!(self.events[key.index()].lifecycle, Lifecycle::Pending { .. }) { self.events[key.index()].lifecycle = Lifecycle::Pending { due_at: ts }; }"),
    ],
    "replayed events go to the back of the queue": [
        ("src/dispatcher/endpoint.rs",
         "for key in revived.iter().rev() {\n            self.pending.push_front(*key);",
         "for key in revived.iter() {\n            self.pending.push_back(*key);"),
    ],
    "unblocked event waits for the next call": [
        ("src/dispatcher/process.rs",
         "        while let Some(&(due_at, key)) = self.ready.first() {\n            if due_at > ts {\n                break;\n            }\n            self.ready.pop_first();\n            sink(self.attempt(key, ts));\n        }",
         "        let due: Vec<_> = self.ready.iter().copied().take_while(|(d, _)| *d <= ts).collect();\n        for (due_at, key) in due {\n            if self.ready.remove(&(due_at, key)) {\n                sink(self.attempt(key, ts));\n            }\n        }"),
    ],
}


def main():
    root = os.getcwd()
    target = os.path.join(root, "target", "planted")
    missed = []
    for name, edits in BUGS.items():
        with tempfile.TemporaryDirectory() as tmp:
            for item in ["Cargo.toml", "Cargo.lock", "src", "spec", "cases", "harness", "benches", "tests", "README.md"]:
                src = os.path.join(root, item)
                dst = os.path.join(tmp, item)
                if os.path.isdir(src):
                    shutil.copytree(src, dst)
                elif os.path.exists(src):
                    shutil.copy(src, dst)
            for path, old, new in edits:
                full = os.path.join(tmp, path)
                text = open(full).read()
                if old not in text:
                    print(f"{name}: edit does not apply to {path}; update this script")
                    sys.exit(2)
                open(full, "w").write(text.replace(old, new, 1))
            run = subprocess.run(
                ["cargo", "test", "-q", "--test", "conformance"],
                cwd=tmp, capture_output=True, text=True,
                env={**os.environ, "CARGO_TARGET_DIR": target},
            )
            out = run.stdout + run.stderr
            if "error[" in out or "could not compile" in out:
                print(f"{name}: does not compile\n{out[-2000:]}")
                sys.exit(2)
            failed = sorted(set(re.findall(r"^    (\S+::\S+)$", out, re.M)))
            print(f"{name}: {len(failed)} cases fail" + (f" ({', '.join(failed[:4])}{', ...' if len(failed) > 4 else ''})" if failed else ""))
            if not failed:
                missed.append(name)
    print(f"\n{len(BUGS) - len(missed)} of {len(BUGS)} planted bugs caught")
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
