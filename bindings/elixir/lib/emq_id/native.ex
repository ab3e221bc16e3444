defmodule EmqId.Native do
  @moduledoc false
  # The NIF (native/src/lib.rs). Every function here is replaced when the
  # library loads; a module whose library cannot load does not load at all.
  @on_load :load

  def load do
    :erlang.load_nif(:filename.join(:code.priv_dir(:emq_id), ~c"emq_id_nif"), 0)
  end

  defp nif, do: :erlang.nif_error(:emq_id_nif_not_loaded)

  def contract, do: nif()
  def gates, do: nif()
  def gate_refusal(_index), do: nif()
  def max_node, do: nif()
  def self_check_vectors, do: nif()
  def encode(_ns, _snowflake), do: nif()
  def parse(_id), do: nif()
  def valid(_id), do: nif()
  def compare(_a, _b), do: nif()
  def hash32(_snowflake), do: nif()
  def fields(_snowflake), do: nif()
  def min_for(_unix_ms), do: nif()
  def slot(_key), do: nif()
  def slot_dirty(_key), do: nif()
  def hashtag(_key), do: nif()
  def hashtag_dirty(_key), do: nif()
  def key(_queue, _type), do: nif()
  def key_with_id(_queue, _type, _id), do: nif()
  def parse_key(_key), do: nif()
  def reserve(_name), do: nif()
  def queue_prefix(_queue), do: nif()
  def job_prefix(_queue), do: nif()
  def prefix_bytes(_queue, _type), do: nif()
  def xadd_id(_id), do: nif()
  def from_xadd_id(_entry, _ns), do: nif()
  def mint_step(_state, _node, _now_ms), do: nif()
  def minter_new(_node), do: nif()
  def minter_node(_minter), do: nif()
  def minter_next(_minter), do: nif()
  def minter_next_at(_minter, _now_ms), do: nif()
  def minter_next_many(_minter, _count), do: nif()
  def mint(_ns), do: nif()
  def process_node, do: nif()
  def set_process_node(_node), do: nif()
  def lease_protocol, do: nif()
  def lease_nodes, do: nif()
  def lease_replicas, do: nif()
  def lease_scripts, do: nif()
  def lease_every_node_leased, do: nif()
  def lease_key, do: nif()
  def lease_parse_acquire(_node, _previous), do: nif()
  def lease_parse_acquire_error(_text), do: nif()
  def lease_parse_renewal(_reply), do: nif()
  def lease_parse_wait(_acknowledged, _replicas), do: nif()
  def lease_default_terms, do: nif()
  def lease_terms(_ttl_ms, _margin_ms), do: nif()
  def lease_terms_for_ttl(_ttl_ms), do: nif()
  def lease_wait_ms(_ttl_ms, _margin_ms), do: nif()
  def leased_start(_node, _previous, _now_ms, _sent_mono_ms, _ttl_ms, _margin_ms), do: nif()
  def leased_node(_minter), do: nif()
  def leased_terms(_minter), do: nif()
  def leased_next_at(_minter, _now_ms, _mono_ms), do: nif()
  def leased_next_mark(_minter, _now_ms), do: nif()
  def leased_renewed(_minter, _sent_mono_ms, _mark), do: nif()
  def leased_stop(_minter), do: nif()
  def leased_high_water(_minter), do: nif()
  def leased_fence_ms(_minter), do: nif()
  def panic_for_test, do: nif()

  # The benchmark's floor: the NIF has it only when built for MIX_ENV=bench (mix.exs).
  if Mix.env() == :bench do
    def noop, do: nif()
  end
end
