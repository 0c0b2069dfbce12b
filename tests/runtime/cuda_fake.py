"""A stand-in for the CUDA driver (``brickwork.cuda_driver.Driver``): device memory is host memory,
launches are recorded instead of run. It lets the host side of CUDA (devices, arrays, copies, launch
geometry and argument packing) be tested on machines without a GPU."""

import contextlib
import ctypes


class FakeDriver:
    def __init__(self, devices=1, capability=(9, 0)):
        self.devices = devices
        self.cc = capability
        self.memory: dict = {}  # base address -> bytearray
        self.owners: dict = {}  # base address -> the ordinal of the device it was allocated on
        self.next = 0x7F0000000000
        self.launches: list = []  # (ordinal, function, grid, block, params)
        self.launch_memory: list = []  # (dynamic shared bytes, global arena pointer) of each launch
        self.shared_allowed: list = []  # (function, bytes) given to allow_dynamic_shared
        self.stream_log: list = []  # ("launch", stream), ("record", event, stream), ("wait", stream, event), ...
        self.events: dict = {}  # live event handle -> timing enabled
        self.next_handle = 0x5000
        self.modules: list = []  # cubins loaded
        self.function_names: list = []  # the kernel names looked up in them
        self.module_functions: dict = {}  # module -> the names looked up in it, in order
        self.globals: dict = {}  # name -> (ptr, size)
        self.synchronized: list = []
        self.freed: list = []

    def version(self):
        return 12090

    def device_count(self):
        return self.devices

    def name(self, ordinal):
        return f"Fake GPU {ordinal}"

    def capability(self, ordinal):
        return self.cc

    def total_memory(self, ordinal):
        return 1 << 34

    def sm_count(self, ordinal):
        return 132

    def max_shared_memory_per_block(self, ordinal):
        return 48 * 1024

    def alloc(self, ordinal, nbytes):
        ptr = self.next
        self.memory[ptr] = bytearray(max(nbytes, 1))
        self.owners[ptr] = ordinal
        self.next += (max(nbytes, 1) + 255) // 256 * 256 + 256
        return ptr

    def pointer_device(self, ptr):
        for base, buf in self.memory.items():
            if base <= ptr < base + len(buf):
                return self.owners.get(base, 0)
        raise AssertionError(f"fake driver: {ptr:#x} is no device memory")

    def free(self, ordinal, ptr):
        self.freed.append(ptr)
        self.memory.pop(ptr, None)

    def _find(self, ptr, n):
        for base, buf in self.memory.items():
            if base <= ptr and ptr + n <= base + len(buf):
                return buf, ptr - base
        raise AssertionError(f"fake driver: {n} bytes at {ptr:#x} are not allocated")

    def copy_to_device(self, ordinal, dst, src_host, nbytes, stream=None):
        self.stream_log.append(("upload", stream))
        buf, off = self._find(dst, nbytes)
        buf[off:off + nbytes] = ctypes.string_at(src_host, nbytes)

    def copy_to_host(self, ordinal, dst_host, src, nbytes):
        buf, off = self._find(src, nbytes)
        ctypes.memmove(dst_host, bytes(buf[off:off + nbytes]), nbytes)

    def copy_on_device(self, ordinal, dst, src, nbytes, stream=None):
        self.stream_log.append(("copy", stream))
        s, so = self._find(src, nbytes)
        d, do = self._find(dst, nbytes)
        d[do:do + nbytes] = s[so:so + nbytes]

    def load_module(self, ordinal, image):
        self.modules.append(image)
        return len(self.modules)

    def function(self, ordinal, module, name):
        """A handle of its own for each name in a module (the first name found: ``1000 * module + 1``), so
        that a launch records which entry it ran."""
        self.function_names.append(name)
        names = self.module_functions.setdefault(module, [])
        if name not in names:
            names.append(name)
        return 1000 * module + 1 + names.index(name)

    def function_name(self, handle):
        """The name ``function`` gave ``handle`` (a launch's function)."""
        return self.module_functions[handle // 1000][handle % 1000 - 1]

    def global_address(self, ordinal, module, name):
        if name not in self.globals:
            self.globals[name] = (self.alloc(ordinal, 88), 88)
        return self.globals[name]

    def launch(self, ordinal, function, grid, block, params, shared=0, arena=0, stream=0):
        self.launches.append((ordinal, function, grid, block, bytes(params)))
        self.launch_memory.append((shared, arena))
        self.stream_log.append(("launch", stream))

    # streams and events: handles counted up, every call recorded in stream_log
    def _handle(self):
        self.next_handle += 1
        return self.next_handle

    def stream_create(self, ordinal):
        h = self._handle()
        self.stream_log.append(("create", h))
        return h

    def stream_destroy(self, ordinal, stream):
        self.stream_log.append(("destroy", stream))

    def stream_synchronize(self, ordinal, stream):
        self.stream_log.append(("sync", stream))

    def stream_query(self, ordinal, stream):
        return True

    def stream_wait_event(self, ordinal, stream, event):
        self.stream_log.append(("wait", stream, event))

    def event_create(self, ordinal, timing=False):
        h = self._handle()
        self.events[h] = timing
        return h

    def event_destroy(self, ordinal, event):
        self.events.pop(event, None)

    def event_record(self, ordinal, event, stream):
        self.stream_log.append(("record", event, stream))

    def event_query(self, ordinal, event):
        return True

    def event_synchronize(self, ordinal, event):
        self.stream_log.append(("event_sync", event))

    def event_elapsed(self, ordinal, start, end):
        return 1.5

    def allow_dynamic_shared(self, ordinal, function, nbytes):
        self.shared_allowed.append((function, nbytes))

    def synchronize(self, ordinal):
        self.synchronized.append(ordinal)


@contextlib.contextmanager
def installed(driver):
    """``driver`` in place of the CUDA driver for a block (the device cache cleared around it, the CPU
    the current device after it): the body of the suite's ``fake`` fixtures."""
    from brickwork import cuda_driver
    from brickwork import device as devices

    cuda_driver.use(driver)
    devices._cuda.clear()
    try:
        yield driver
    finally:
        cuda_driver.use(None)
        devices._cuda.clear()
        devices.set_device("cpu")

