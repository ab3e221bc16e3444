defmodule EmqId.Lease do
  # The module's doc is lease.md, beside this file: a README-style page whose
  # iex> lines run as doctests, and whose Redix example (a module, hence kept
  # out of this file's source) test/lease_test.exs compiles.
  @external_resource Path.join(__DIR__, "lease.md")
  @moduledoc File.read!(Path.join(__DIR__, "lease.md"))
  import EmqId.Host
  alias EmqId.Native

  @typedoc "One of the protocol's scripts: its name, its Lua text, and what `KEYS` and `ARGV` hold, in order."
  @type script :: %{name: String.t(), text: String.t(), keys: [String.t()], args: [String.t()]}

  @typedoc "`acquire`'s reply, read: the node taken and its previous owners' mark (unix ms; `nil`: never leased)."
  @type acquired :: %{node: non_neg_integer, previous_mark: non_neg_integer | nil}

  @typedoc "What one lease write came to (`outcomes/0`)."
  @type outcome :: :counted | :unacknowledged | :gone | :leased | :ask | :moved | :not_run | :fault

  @typedoc "The node a `MOVED` or `ASK` reply names (`host` `nil`: the host the redirected connection was opened to)."
  @type redirect :: %{ask: boolean, slot: 0..16383, host: String.t() | nil, port: 0..65535}

  @typedoc "How long a lease lives (`ttl_ms`) and how long before that its owner stops minting (`margin_ms`)."
  @type terms :: %{ttl_ms: pos_integer, margin_ms: non_neg_integer}

  @doc """
  The protocol the scripts implement.

      iex> EmqId.Lease.protocol()
      "emq-lease/3"
  """
  @spec protocol() :: String.t()
  def protocol, do: Native.lease_protocol()

  @doc """
  How many nodes a lease can be taken on (`ARGV[4]` of `acquire`): nodes
  `0..nodes() - 1`.

      iex> EmqId.Lease.nodes() == EmqId.max_node() + 1
      true
  """
  @spec nodes() :: pos_integer
  def nodes, do: Native.lease_nodes()

  @doc """
  How many replicas must acknowledge a lease write (`WAIT`'s numreplicas,
  for `parse_wait/2`) unless the deployment says otherwise.

      iex> EmqId.Lease.replicas()
      1
  """
  @spec replicas() :: non_neg_integer
  def replicas, do: Native.lease_replicas()

  @doc """
  The scripts `acquire`, `renew` and `release`, in that order, byte for byte
  what every runtime sends.

      iex> Enum.map(EmqId.Lease.scripts(), &{&1.name, length(&1.keys), length(&1.args)})
      [{"acquire", 1, 5}, {"renew", 1, 4}, {"release", 1, 3}]
  """
  @spec scripts() :: [script]
  def scripts do
    for {name, text, keys, args} <- Native.lease_scripts(), do: %{name: name, text: text, keys: keys, args: args}
  end

  @doc """
  One script by name (`:acquire`, `:renew` or `:release`); another name
  raises `ArgumentError`.

      iex> EmqId.Lease.script(:renew).args
      ["token", "ttl ms", "mark, unix ms", "node"]
  """
  @spec script(atom) :: script
  def script(name) when is_atom(name) do
    wanted = Atom.to_string(name)
    Enum.find(scripts(), &(&1.name == wanted)) || raise(ArgumentError, "no lease script named #{inspect(name)}")
  end

  def script(other), do: raise(ArgumentError, "a script name must be an atom, got: #{inspect(other)}")

  @doc """
  The error text of `acquire` when every node is leased
  (`parse_acquire_error/1` reads it as `{:error, :node}`).

      iex> EmqId.Lease.every_node_leased()
      "EMQLEASE every node is leased"
  """
  @spec every_node_leased() :: String.t()
  def every_node_leased, do: Native.lease_every_node_leased()

  @doc """
  The reserve's one lease key, `KEYS[1]` of every script: a hash holding,
  for each node `<n>`, `<n>:token` (its owner's token), `<n>:until` (when
  the lease ends, unix ms on the server's clock) and `<n>:mark` (a unix ms
  no id of any owner of the node has reached). Its slot is the reserve's:
  the primary a lease client must reach.

      iex> EmqId.Lease.key()
      "{emq}:leases"
      iex> EmqId.Keyspace.slot(EmqId.Lease.key()) == EmqId.Keyspace.slot(EmqId.Keyspace.version_key())
      true
  """
  @spec key() :: String.t()
  def key, do: Native.lease_key()

  @doc """
  Reads `acquire`'s reply `[node, previous]` (two integers, as Valkey
  clients give them): anything the script cannot answer is `{:error, :range}`.

      iex> EmqId.Lease.parse_acquire(1023, 1769526697641)
      {:ok, %{node: 1023, previous_mark: 1769526697641}}
      iex> EmqId.Lease.parse_acquire(0, -2)
      {:error, :range}
  """
  @spec parse_acquire(integer, integer) :: {:ok, acquired} | {:error, :range}
  def parse_acquire(node, previous) when i64?(node) and i64?(previous) do
    with {:ok, {node, previous_mark}} <- Native.lease_parse_acquire(node, previous) do
      {:ok, %{node: node, previous_mark: previous_mark}}
    end
  end

  def parse_acquire(node, previous),
    do: integer!(node, "a node") && range(integer!(previous, "a mark"))

  @doc """
  Reads an error reply of `acquire` (its text, with or without `ERR `):
  `{:error, :node}` when every node is leased (the remedy is capacity, or
  fewer minters), `nil` for any other error, which is not the script's but
  the connection's or the server's.

      iex> EmqId.Lease.parse_acquire_error("EMQLEASE every node is leased")
      {:error, :node}
      iex> EmqId.Lease.parse_acquire_error("NOSCRIPT No matching script. Please use EVAL.")
      nil
  """
  @spec parse_acquire_error(binary) :: {:error, :node} | nil
  def parse_acquire_error(text), do: Native.lease_parse_acquire_error(binary!(text, "an error text"))

  @doc """
  Reads the reply of `renew` or `release`: `:ok` for `1`; `{:error, :node}`
  for `0` (the lease is gone or another's: stop minting on it); anything
  else is `{:error, :range}`.

      iex> EmqId.Lease.parse_renewal(1)
      :ok
      iex> EmqId.Lease.parse_renewal(2)
      {:error, :range}
  """
  @spec parse_renewal(integer) :: :ok | {:error, :node | :range}
  def parse_renewal(reply) when i64?(reply), do: Native.lease_parse_renewal(reply)
  def parse_renewal(reply), do: range(integer!(reply, "a reply"))

  @doc """
  Reads the reply of `WAIT replicas timeout`, sent on the connection that
  ran `acquire` or `renew`: `:ok` when at least `replicas` replicas
  acknowledged the write; `{:error, :node}` for fewer (a failover could lose
  it: mint nothing on that acquire, do not record that renewal with
  `EmqId.LeasedMinter.renewed/3`); `{:error, :range}` for a negative reply or
  a count of replicas outside `0..2^32-1`.

      iex> EmqId.Lease.parse_wait(1, EmqId.Lease.replicas())
      :ok
      iex> EmqId.Lease.parse_wait(0, 1)
      {:error, :node}
      iex> EmqId.Lease.parse_wait(-1, 1)
      {:error, :range}
  """
  @spec parse_wait(integer, integer) :: :ok | {:error, :node | :range}
  def parse_wait(acknowledged, replicas) when i64?(acknowledged) and u32?(replicas),
    do: Native.lease_parse_wait(acknowledged, replicas)

  def parse_wait(acknowledged, replicas),
    do: integer!(acknowledged, "a reply") && range(integer!(replicas, "a count of replicas"))

  @doc """
  The core's default terms: renewals every third of the TTL leave two tries
  before the fence.

      iex> EmqId.Lease.default_terms()
      %{ttl_ms: 30000, margin_ms: 5000}
  """
  @spec default_terms() :: terms
  def default_terms, do: terms_of(Native.lease_default_terms())

  @doc """
  Terms for a TTL of `ttl_ms` with the default margin, kept to a sixth of
  the TTL for short leases (tests, short-lived jobs); `{:error, :range}` for a
  TTL the core refuses.

      iex> EmqId.Lease.terms(3_000)
      {:ok, %{ttl_ms: 3000, margin_ms: 500}}
      iex> EmqId.Lease.terms(60_000)
      {:ok, %{ttl_ms: 60000, margin_ms: 5000}}
  """
  @spec terms(integer) :: {:ok, terms} | {:error, :range}
  def terms(ttl_ms) when u64?(ttl_ms) do
    with {:ok, terms} <- Native.lease_terms_for_ttl(ttl_ms), do: {:ok, terms_of(terms)}
  end

  def terms(ttl_ms), do: range(integer!(ttl_ms, "a TTL"))

  @doc """
  Terms of your own: a TTL of 1 ms to a day, a margin below it (else
  `{:error, :range}`). The margin must exceed how far this host's monotonic
  clock can run slower than the server's over one TTL, plus the time a
  renewal takes to arrive.

      iex> EmqId.Lease.terms(10_000, 2_000)
      {:ok, %{ttl_ms: 10000, margin_ms: 2000}}
      iex> EmqId.Lease.terms(10_000, 10_000)
      {:error, :range}
  """
  @spec terms(integer, integer) :: {:ok, terms} | {:error, :range}
  def terms(ttl_ms, margin_ms) when u64?(ttl_ms) and u64?(margin_ms) do
    with {:ok, terms} <- Native.lease_terms(ttl_ms, margin_ms), do: {:ok, terms_of(terms)}
  end

  def terms(ttl_ms, margin_ms), do: integer!(ttl_ms, "a TTL") && range(integer!(margin_ms, "a margin"))

  @doc """
  The timeout (ms) of the `WAIT` sent after a lease write under `terms`;
  `{:error, :range}` for terms the core refuses.

      iex> EmqId.Lease.wait_ms(EmqId.Lease.default_terms())
      {:ok, 2500}
      iex> EmqId.Lease.wait_ms(%{ttl_ms: 3_000, margin_ms: 500})
      {:ok, 250}
      iex> EmqId.Lease.wait_ms(%{ttl_ms: 10, margin_ms: 10})
      {:error, :range}
  """
  @spec wait_ms(terms) :: {:ok, pos_integer} | {:error, :range}
  def wait_ms(terms), do: with_terms(terms, &Native.lease_wait_ms/2)

  @doc """
  How often a held lease is renewed under `terms` (ms): every third of the
  TTL, which leaves two more tries before the fence of the default margin;
  `{:error, :range}` for terms the core refuses. `EmqId.Lease.Keeper` keeps
  this schedule.

      iex> EmqId.Lease.renew_every_ms(EmqId.Lease.default_terms())
      {:ok, 10000}
      iex> EmqId.Lease.renew_every_ms(%{ttl_ms: 10, margin_ms: 10})
      {:error, :range}
  """
  @spec renew_every_ms(terms) :: {:ok, pos_integer} | {:error, :range}
  def renew_every_ms(terms), do: with_terms(terms, &Native.lease_renew_every_ms/2)

  @doc """
  How soon a write that did not count (unacknowledged, not run, a fault,
  every node leased) is tried again under `terms` (ms): a twentieth of the
  TTL, within 10 to 250 ms; `{:error, :range}` for terms the core refuses.

      iex> EmqId.Lease.retry_ms(EmqId.Lease.default_terms())
      {:ok, 250}
      iex> EmqId.Lease.retry_ms(%{ttl_ms: 2_000, margin_ms: 333})
      {:ok, 100}
  """
  @spec retry_ms(terms) :: {:ok, pos_integer} | {:error, :range}
  def retry_ms(terms), do: with_terms(terms, &Native.lease_retry_ms/2)

  @doc """
  Every outcome a lease write can come to, in the core's order:

    * `:counted`: the script ran, the lease is the owner's, and enough
      replicas acknowledged it;
    * `:unacknowledged`: the same, but too few replicas (`WAIT`): it moves
      neither the fence nor the mark;
    * `:gone`: a renewal or release answered `0` (the lease is gone or another's);
    * `:leased`: the acquire answered that every node is leased;
    * `:ask`: the reserve's slot is migrating and its key has left the node:
      the same write goes, with `ASKING` in front, to the node named
      (`redirect/1`);
    * `:moved`: `MOVED` or `READONLY`, the script did not write: find the
      reserve's primary again;
    * `:not_run`: the server refused the script before it wrote (`TRYAGAIN`,
      `CLUSTERDOWN`, `LOADING`, `MASTERDOWN`, `BUSY`; `NOREPLICAS`, `OOM`,
      `MISCONF`, which refuse its first write);
    * `:fault`: anything else (a reply the protocol does not give, a dropped
      connection): whether the write ran is unknown.

  The list is the core's:

      iex> EmqId.Lease.outcomes()
      [:counted, :unacknowledged, :gone, :leased, :ask, :moved, :not_run, :fault]
  """
  @spec outcomes() :: [outcome]
  def outcomes, do: Native.lease_outcomes()

  @doc """
  Reads an error reply to a lease script (its text after `-`, as
  `Exception.message/1` gives it). `asked` says whether the write was sent
  after `ASKING`: a node that was asked and redirects again is not followed a
  second time, and the write is a `:fault`.

      iex> EmqId.Lease.read_error("CLUSTERDOWN Hash slot not served", false)
      :not_run
      iex> EmqId.Lease.read_error("ASK 9051 10.0.0.2:7001", false)
      :ask
      iex> EmqId.Lease.read_error("ASK 9051 10.0.0.2:7001", true)
      :fault
      iex> EmqId.Lease.read_error("ERR " <> EmqId.Lease.every_node_leased(), false)
      :leased
  """
  @spec read_error(binary, boolean) :: outcome
  def read_error(text, asked) when is_boolean(asked), do: Native.lease_read_error(binary!(text, "an error text"), asked)
  def read_error(_text, asked), do: raise(ArgumentError, "asked must be a boolean, got: #{inspect(asked)}")

  @doc """
  What a write whose script answered without an error came to: `held` is
  the script's answer (an acquire that answered a node, `:ok` of
  `parse_renewal/1`), `acknowledged` is `parse_wait/2`'s `:ok` (`true` when no
  `WAIT` was wanted).

      iex> EmqId.Lease.write_outcome(true, true)
      :counted
      iex> EmqId.Lease.write_outcome(true, false)
      :unacknowledged
      iex> EmqId.Lease.write_outcome(false, true)
      :gone
  """
  @spec write_outcome(boolean, boolean) :: outcome
  def write_outcome(held, acknowledged) when is_boolean(held) and is_boolean(acknowledged),
    do: Native.lease_write_outcome(held, acknowledged)

  def write_outcome(held, acknowledged),
    do: raise(ArgumentError, "held and acknowledged are booleans, got: #{inspect(held)}, #{inspect(acknowledged)}")

  @doc """
  Where a `MOVED` or `ASK` reply sends a write (`<CODE> <slot> <host>:<port>`),
  or `nil` for any other text. A `host` of `nil` is the host the redirected
  connection was opened to (a node that cannot name its own address).

      iex> EmqId.Lease.redirect("ASK 9051 10.0.0.2:7001")
      %{ask: true, slot: 9051, host: "10.0.0.2", port: 7001}
      iex> EmqId.Lease.redirect("MOVED 9051 :7001")
      %{ask: false, slot: 9051, host: nil, port: 7001}
      iex> EmqId.Lease.redirect("CLUSTERDOWN Hash slot not served")
      nil
  """
  @spec redirect(binary) :: redirect | nil
  def redirect(text) do
    with {ask, slot, host, port} <- Native.lease_redirect(binary!(text, "an error text")),
         do: %{ask: ask, slot: slot, host: host, port: port}
  end
end
