"""The one compiled part: server._fastrtp (outbound RTP in C, server/fastrtp.py).

Optional: where no C compiler is there, pip installs the rest and the server
sends through its Python path (server/rtc.py), the same bytes, more CPU.
Everything else is configured in pyproject.toml.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("server._fastrtp", ["server/_fastrtp.c"], optional=True,
                             extra_compile_args=["-O2", "-Wall"])])
