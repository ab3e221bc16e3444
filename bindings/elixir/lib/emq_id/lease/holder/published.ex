defmodule EmqId.Lease.Holder.Published do
  @moduledoc false
  # The lease minted on, published where callers read it without a message
  # to the holder: a protected ETS table the holder owns (it alone writes,
  # any process reads). A caller finds the table once, by one call to the
  # holder, and keeps its id in its process dictionary; the table dies with
  # the holder, and a read of a dead table is "no lease held".
  #
  # The minter is a NIF resource safe to call from many processes; a lease
  # the holder gives up is stopped first, so a caller that read it a moment
  # before is refused (:node) rather than minting on a lost node.

  @key :current

  @doc "A fresh table, owned by the calling process (the holder)."
  def new, do: :ets.new(__MODULE__, [:set, :protected, read_concurrency: true])

  @doc "Publishes a lease (`nil`: none)."
  def put(table, nil), do: :ets.delete(table, @key)
  def put(table, %{minter: minter, held: held}), do: :ets.insert(table, {@key, minter, held})

  @doc "`{minter, held}` of the lease held now, or `nil`."
  def get(holder) do
    with {:ok, table} <- table(holder),
         [{@key, minter, held}] <- lookup(table) do
      {minter, held}
    else
      _ -> nil
    end
  end

  defp lookup(table) do
    :ets.lookup(table, @key)
  rescue
    # The holder has stopped, and its table with it.
    ArgumentError -> []
  end

  defp table(holder) do
    case GenServer.whereis(holder) do
      pid when is_pid(pid) -> cached(pid)
      _ -> :error
    end
  end

  defp cached(pid) do
    case Process.get({__MODULE__, pid}) do
      nil -> ask(pid)
      table -> {:ok, table}
    end
  end

  defp ask(pid) do
    table = GenServer.call(pid, :published)
    Process.put({__MODULE__, pid}, table)
    {:ok, table}
  catch
    :exit, _ -> :error
  end
end
