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
  def panic_for_test, do: nif()
  def noop, do: nif()
end
