import asyncio


async def resize(n):
    if n < 0:
        raise ValueError(f"negative size {n}")
    return n * 2


async def upload(name):
    await asyncio.sleep(0)
    return name.upper() + 1


async def main():
    async with asyncio.TaskGroup() as tg:
        tg.create_task(resize(-1))
        tg.create_task(upload("a.png"))


asyncio.run(main())
