"""Where brickwork's messages go: ``custom`` is the logger a program installed with ``wp.set_logger``
(runtime/loggers.py keeps it here), or None for brickwork's default routes (stdout, stderr, Python's
``logging``). The places that write messages read it: runtime/warp_warnings.py (Warp-form warnings),
runtime/launch_printing.py (``print_launches``), jit/notice.py (the compile notices). A module of its own, with
no imports, so that each of them can reach it without an import cycle."""

#: The installed logger (any object with debug/info/warning/error methods), or None.
custom = None
