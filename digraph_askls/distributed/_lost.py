"""Workers lost in the middle of a product: copies of the blocks, or an error that says so.

Blocks scattered to a worker live only in its memory; dask cannot compute them again when
the worker dies, and the tasks that need them are cancelled. A distributed kernel may
therefore hold each row block on several workers, each copy under a key of its own (dask
keeps one replica of a key and drops the others): a product whose copy was lost runs again
on the next copy. Without a copy left, the solve stops with :class:`WorkerLostError`
rather than return anything else.
"""

import concurrent.futures

from ._lazy import import_optional

__all__ = ["WorkerLostError", "gather_products", "run_on_copies"]


class WorkerLostError(RuntimeError):
    """A worker holding row blocks of a distributed kernel was lost during a product.

    Examples
    --------
    >>> from digraph_askls.distributed import WorkerLostError
    >>> issubclass(WorkerLostError, RuntimeError)
    True
    """


def gather_products(client, futures, what):
    """``client.gather(futures)``; a cancelled task (a lost block) raises
    :class:`WorkerLostError`."""
    distributed = import_optional("dask.distributed")
    try:
        return client.gather(futures)
    except (concurrent.futures.CancelledError, distributed.KilledWorker) as error:
        raise WorkerLostError(
            f"a dask worker holding row blocks of the kernel was lost during {what}, and "
            f"dask cannot compute scattered blocks again: the product has no result, so "
            f"the solve stopped ({type(error).__name__}: {error}). Build the operator "
            f"with replicas=2 (a copy of every block on a second worker) to survive the "
            f"loss of a worker, or build it again on the cluster and solve again") \
            from error


def run_on_copies(client, function, copies, arguments, what):
    """``function(block, *arguments(b))`` for every block ``b``, on a worker holding it.

    Parameters
    ----------
    client : dask.distributed.Client
    function : callable
    copies : list of list of (future, worker)
        The copies of each block. A copy lost with its worker is removed from the list,
        and the block's task runs again on the next copy.
    arguments : callable
        ``arguments(b)``: the other arguments of block ``b``'s task.
    what : str
        The product, for the message of :class:`WorkerLostError`.

    Returns
    -------
    list
        The result of each block, in block order.
    """
    def submit(b):
        block, worker = copies[b][0]
        return client.submit(function, block, *arguments(b), workers=[worker], pure=False)

    futures = [submit(b) for b in range(len(copies))]
    try:
        return gather_products(client, futures, what)
    except WorkerLostError:
        if all(len(held) == 1 for held in copies):
            raise
    results = []
    for b, future in enumerate(futures):
        while True:
            try:
                results.append(gather_products(client, [future], what)[0])
                break
            except WorkerLostError:
                copies[b].pop(0)
                if not copies[b]:
                    raise
                future = submit(b)
    return results
