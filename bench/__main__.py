"""Every benchmark, one after another: `make bench`."""

import asyncio

from bench import platform, suite

asyncio.run(platform.main())
suite.main()
