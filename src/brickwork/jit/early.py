"""Large units start compiling while the rest of a batch is still being generated.

``pipeline.build`` generates every pending instance's code (typing, passes, rendering: Python, hundreds of
milliseconds for a large kernel) before it compiles them. The compiler runs in a subprocess, so a large unit
(``batch.LARGE_UNIT`` or more: it compiles alone anyway) is handed to the compiler as soon as its code is
generated, and compiles while the next instances are generated; the others are compiled together afterwards
(``compile_many``'s batches), as before. A unit whose text equals one compiling early waits for it, and then
takes a copy of its library (``same_source``) instead of a second compiler run.
"""

from __future__ import annotations

import concurrent.futures
import os

from .. import config
from . import batch


class EarlyCompiles:
    """The jobs ``(key, source, label, meta)`` of one build, each large one started by ``compile_many([job])``
    when it is ``offer``-ed; ``finish`` compiles the others and returns every job's result, in order."""

    def __init__(self, compile_many, enabled: bool = True):
        self.compile_many = compile_many
        self.enabled = enabled
        self.pool: concurrent.futures.ThreadPoolExecutor | None = None
        self.started: dict = {}  # job index -> future of [result]
        self.texts: set = set()  # the sources compiling early

    def offer(self, index: int, job: tuple) -> None:
        source = job[1]
        if not self.enabled or len(source) < batch.LARGE_UNIT or source in self.texts:
            return
        if self.pool is None:
            workers = config.compile_jobs or os.cpu_count() or 2
            self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="brickwork-cc")
        self.texts.add(source)
        self.started[index] = self.pool.submit(self.compile_many, [job])

    def finish(self, jobs: list) -> list:
        """Every job's result (a library's ``(path, meta)`` or the exception), in the order of ``jobs``."""
        try:
            rest = [i for i in range(len(jobs)) if i not in self.started and jobs[i][1] not in self.texts]
            copies = [i for i in range(len(jobs)) if i not in self.started and jobs[i][1] in self.texts]
            results = dict(zip(rest, self.compile_many([jobs[i] for i in rest]))) if rest else {}
            for i, future in self.started.items():
                results[i] = future.result()[0]
            if copies:  # now that the early ones are published, a copy of each one's library
                results.update(zip(copies, self.compile_many([jobs[i] for i in copies])))
            return [results[i] for i in range(len(jobs))]
        finally:
            self.close()

    def close(self) -> None:
        """Wait for the compiles started (a build that stops while generating leaves no compiler running)."""
        if self.pool is not None:
            self.pool.shutdown(wait=True)
            self.pool = None
