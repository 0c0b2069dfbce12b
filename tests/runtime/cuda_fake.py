"""A stand-in for the CUDA driver (``brickwork.cuda_driver.Driver``): device memory is host memory,
launches are recorded instead of run. It lets the host side of CUDA (devices, arrays, copies, launch
geometry and argument packing) be tested on machines without a GPU."""

import ctypes


class FakeDriver:
    def __init__(self, devices=1, capability=(9, 0)):
        self.devices = devices
        self.cc = capability
        self.memory: dict = {}  # base address -> bytearray
        self.next = 0x7F0000000000
        self.launches: list = []  # (ordinal, function, grid, block, params)
        self.modules: list = []  # cubins loaded
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

    def alloc(self, ordinal, nbytes):
        ptr = self.next
        self.memory[ptr] = bytearray(max(nbytes, 1))
        self.next += (max(nbytes, 1) + 255) // 256 * 256 + 256
        return ptr

    def free(self, ordinal, ptr):
        self.freed.append(ptr)
        self.memory.pop(ptr, None)

    def _find(self, ptr, n):
        for base, buf in self.memory.items():
            if base <= ptr and ptr + n <= base + len(buf):
                return buf, ptr - base
        raise AssertionError(f"fake driver: {n} bytes at {ptr:#x} are not allocated")

    def copy_to_device(self, ordinal, dst, src_host, nbytes):
        buf, off = self._find(dst, nbytes)
        buf[off:off + nbytes] = ctypes.string_at(src_host, nbytes)

    def copy_to_host(self, ordinal, dst_host, src, nbytes):
        buf, off = self._find(src, nbytes)
        ctypes.memmove(dst_host, bytes(buf[off:off + nbytes]), nbytes)

    def copy_on_device(self, ordinal, dst, src, nbytes):
        s, so = self._find(src, nbytes)
        d, do = self._find(dst, nbytes)
        d[do:do + nbytes] = s[so:so + nbytes]

    def load_module(self, ordinal, image):
        self.modules.append(image)
        return len(self.modules)

    def function(self, ordinal, module, name):
        return 1000 * module + 1

    def global_address(self, ordinal, module, name):
        if name not in self.globals:
            self.globals[name] = (self.alloc(ordinal, 88), 88)
        return self.globals[name]

    def launch(self, ordinal, function, grid, block, params):
        self.launches.append((ordinal, function, grid, block, bytes(params)))

    def synchronize(self, ordinal):
        self.synchronized.append(ordinal)
