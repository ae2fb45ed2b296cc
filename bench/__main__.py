"""Every benchmark, one after another: `make bench`."""

import asyncio

from bench import platform

asyncio.run(platform.main())
