"""Every benchmark, one after another: `make bench`."""

import asyncio

from bench import (
    agents,
    concurrency,
    generate,
    page_weight,
    platform,
    queue,
    real_model,
    recovery,
    suite,
)

asyncio.run(platform.main())
page_weight.main()
suite.main()
agents.main()
real_model.main()
concurrency.main([])
recovery.main()
generate.main()
queue.main([])
