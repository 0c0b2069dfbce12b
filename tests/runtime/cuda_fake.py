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
        self.memory_ops: list = []  # memsets and device copies run: ("memset", dst, value, count, width), ...
        self.freed: list = []
        # CUDA graphs: a stream capture records the stream's launches, memsets and copies. graph_log holds the
        # calls in order: ("create_stream", s, non_blocking), ("begin", s), ("captured", s) (a launch),
        # ("captured", s, "memset"), ("end", s, graph),
        # ("instantiate", graph, exe), ("launch", exe, s), ("destroy_graph", graph), ("destroy_exec", exe), ...
        self.graph_log: list = []
        self.capturing: dict = {}  # stream -> the nodes captured on it
        self.graphs: dict = {}  # live graph -> its nodes
        self.execs: dict = {}  # live executable graph -> its nodes
        self.fail: dict = {}  # method name -> the CUDA error code it returns (raised as the real Driver does)

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

    # the attributes behind Device's Warp properties: an H100 SXM's answers, device N on PCI bus 0x18 + N
    ATTRIBUTES = {"unified_addressing": 1, "pageable_memory_access": 0, "direct_managed_mem_access_from_host": 0,
                  "host_native_atomic_supported": 0, "managed_memory": 1, "concurrent_managed_access": 1,
                  "pci_domain_id": 0, "pci_device_id": 0}
    FREE_MEMORY = (1 << 34) - (600 << 20)

    def attribute(self, ordinal, name):
        return 0x18 + ordinal if name == "pci_bus_id" else self.ATTRIBUTES[name]

    def uuid(self, ordinal):
        return bytes(range(16 * ordinal, 16 * ordinal + 16))

    def memory_info(self, ordinal):
        return self.FREE_MEMORY, self.total_memory(ordinal)

    def context(self, ordinal):
        self.contexts = getattr(self, "contexts", set()) | {ordinal}
        return 0xC000 + ordinal

    def has_context(self, ordinal):
        return ordinal in getattr(self, "contexts", ())

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
        s, so = self._find(src, nbytes)
        d, do = self._find(dst, nbytes)

        def copy():
            d[do:do + nbytes] = s[so:so + nbytes]

        self._memory_op(("copy", dst, src, nbytes), stream, copy)

    # memsets, checked as the driver checks them (asynchronous: on a stream, or into its capture)
    def memset(self, ordinal, dst, value, count, width, stream):
        self._maybe_fail("memset", f"set device memory (cuMemsetD{8 * width}Async)")
        assert width in (1, 2, 4) and dst % width == 0, f"fake driver: a {width}-byte memset at {dst:#x}"
        assert 0 <= value < 1 << 8 * width, f"fake driver: {value} is no {8 * width}-bit memset value"
        buf, off = self._find(dst, count * width)
        word = value.to_bytes(width, "little")

        def write():
            buf[off:off + count * width] = word * count

        self._memory_op(("memset", dst, value, count, width), stream, write)

    def memset_2d32(self, ordinal, dst, pitch, value, width, height, stream):
        self._maybe_fail("memset_2d32", "set device memory (cuMemsetD2D32Async)")
        assert dst % 4 == 0 and pitch >= 4 * width and pitch % 4 == 0, f"fake driver: a 2-D memset {dst:#x}/{pitch}"
        assert 0 <= value < 1 << 32, f"fake driver: {value} is no 32-bit memset value"
        buf, off = self._find(dst, (height - 1) * pitch + 4 * width)
        row = value.to_bytes(4, "little") * width

        def write():
            for r in range(height):
                buf[off + r * pitch:off + r * pitch + 4 * width] = row

        self._memory_op(("memset_2d32", dst, pitch, value, width, height), stream, write)

    def _memory_op(self, op, stream, apply):
        """Apply a copy or memset now (logged in stream_log as its kind and stream, and in memory_ops), or, on a
        capturing stream, record it into the capture's graph (``("captured", stream, kind)`` in graph_log)."""
        if stream in self.capturing:
            self.capturing[stream].append((op, apply))
            self.graph_log.append(("captured", stream, op[0]))
            return
        self.stream_log.append((op[0], stream))
        self.memory_ops.append(op)
        apply()

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
        self._maybe_fail("launch", "launch a kernel")
        _check_geometry(grid, block)
        if stream in self.capturing:  # recorded into the capture's graph, run when it is launched
            self.capturing[stream].append(((ordinal, function, grid, block, bytes(params)), (shared, arena)))
            self.graph_log.append(("captured", stream))
            return
        self.launches.append((ordinal, function, grid, block, bytes(params)))
        self.launch_memory.append((shared, arena))
        self.stream_log.append(("launch", stream))

    # CUDA graphs, as the driver makes them: capture a stream, instantiate, launch, destroy
    def _maybe_fail(self, method, doing):
        code = self.fail.get(method)
        if code:
            from brickwork import cuda_driver

            raise cuda_driver.CudaError(f"CUDA driver: cannot {doing}: CUDA_ERROR_FAKE (CUresult {code})", code)

    def capture_begin(self, ordinal, stream):
        assert stream != 0 and stream not in self.capturing, "the legacy stream, or one capturing, cannot begin"
        self.capturing[stream] = []
        self.graph_log.append(("begin", stream))

    def capture_end(self, ordinal, stream):
        launches = self.capturing.pop(stream)
        self._maybe_fail("capture_end", "end a stream capture (cuStreamEndCapture)")
        g = self._handle()
        self.graphs[g] = launches
        self.graph_log.append(("end", stream, g))
        return g

    def graph_instantiate(self, ordinal, graph):
        self._maybe_fail("graph_instantiate", "instantiate a CUDA graph (cuGraphInstantiateWithFlags)")
        e = self._handle()
        self.execs[e] = list(self.graphs[graph])
        self.graph_log.append(("instantiate", graph, e))
        return e

    def graph_launch(self, ordinal, exe, stream):
        self.graph_log.append(("launch", exe, stream))
        self.stream_log.append(("graph", stream))
        for node, what in self.execs[exe]:
            if callable(what):  # a memset or a copy
                self.memory_ops.append(node)
                what()
            else:
                self.launches.append(node)
                self.launch_memory.append(what)

    def graph_destroy(self, ordinal, graph):
        del self.graphs[graph]
        self.graph_log.append(("destroy_graph", graph))

    def graph_exec_destroy(self, ordinal, exe):
        del self.execs[exe]
        self.graph_log.append(("destroy_exec", exe))

    # streams and events: handles counted up, every call recorded in stream_log
    def _handle(self):
        self.next_handle += 1
        return self.next_handle

    def stream_create(self, ordinal, non_blocking=False):
        h = self._handle()
        self.stream_log.append(("create", h))
        self.graph_log.append(("create_stream", h, non_blocking))
        return h

    def stream_destroy(self, ordinal, stream):
        self.stream_log.append(("destroy", stream))
        self.graph_log.append(("destroy_stream", stream))

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


#: CUDA's limits on a launch: grid x, y, z and threads of a block (cuLaunchKernel refuses more)
_MAX_GRID = (2**31 - 1, 65535, 65535)
_MAX_BLOCK_THREADS = 1024


def _check_geometry(grid, block):
    """As the driver does: a grid or block outside CUDA's limits (or of no block or thread) is an invalid value."""
    g = (grid, 1, 1) if type(grid) is int else tuple(grid)
    b = (block, 1, 1) if type(block) is int else tuple(block)
    thread_count = b[0] * b[1] * b[2]
    if len(g) != 3 or len(b) != 3 or not all(1 <= n <= m for n, m in zip(g, _MAX_GRID, strict=True)) \
            or not all(n >= 1 for n in b) or thread_count > _MAX_BLOCK_THREADS:
        from brickwork import cuda_driver

        raise cuda_driver.CudaError(f"CUDA driver: cannot launch a kernel of grid {g} and block {b}: "
                                    "CUDA_ERROR_INVALID_VALUE (CUresult 1)", 1)


@contextlib.contextmanager
def installed(driver):
    """``driver`` in place of the CUDA driver for a block (the device cache cleared around it, the CPU
    the current device after it): the body of the suite's ``fake`` fixtures."""
    from brickwork import cuda_driver, pending_checks
    from brickwork import device as devices

    cuda_driver.use(driver)
    devices._cuda.clear()
    pending_checks.forget()  # launches another driver made are no business of this one
    try:
        yield driver
    finally:
        cuda_driver.use(None)
        devices._cuda.clear()
        devices.set_device("cpu")
        pending_checks.forget()



@contextlib.contextmanager
def counting_copies():
    """A fake driver installed for a block, with ``copies``: each copy between host and device it made, as
    ``("up" | "down", bytes)``, so a test can say that nothing went through the host."""
    with installed(FakeDriver()) as drv:
        drv.copies = []
        upload, download = drv.copy_to_device, drv.copy_to_host

        def to_device(ordinal, dst, src, nbytes, stream=None):
            drv.copies.append(("up", nbytes))
            return upload(ordinal, dst, src, nbytes, stream)

        def to_host(ordinal, dst, src, nbytes):
            drv.copies.append(("down", nbytes))
            return download(ordinal, dst, src, nbytes)

        drv.copy_to_device, drv.copy_to_host = to_device, to_host
        yield drv
