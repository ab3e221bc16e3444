package io.echomq.emqid.holder;

import io.echomq.emqid.Lease;
import io.echomq.emqid.LeaseScript;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A scripted {@link Wire}: each send is answered by the test's {@link Answer} (the replies a
 * server would give, error replies among them, or an exception for a dropped connection); every
 * send, reroute and reconnect is recorded. The core's decisions are real: only the transport is
 * scripted.
 */
final class FakeWire implements Wire {
    /** The primary the fake's client "finds" for the reserve's slot. */
    static final Node PRIMARY = new Node("10.0.0.1", 7000);

    /** One send: where it went (empty: the primary) and its commands. */
    record Call(Optional<Node> to, List<List<String>> commands) {
        /** The script's name ("acquire", "renew", "release"). */
        String script() {
            List<String> eval = eval();
            for (LeaseScript s : Lease.scripts()) {
                if (s.text().equals(eval.get(1))) {
                    return s.name();
                }
            }
            throw new AssertionError("not a lease script: " + eval);
        }

        /** The EVAL command. */
        List<String> eval() {
            return commands.stream().filter(c -> c.get(0).equals("EVAL")).findFirst().orElseThrow();
        }

        /** The script's arguments (ARGV). */
        List<String> argv() {
            List<String> eval = eval();
            return eval.subList(4, eval.size());
        }

        boolean asking() {
            return commands.get(0).equals(List.of("ASKING"));
        }

        boolean waits() {
            return commands.get(commands.size() - 1).get(0).equals("WAIT");
        }
    }

    /** How the scripted server answers a send. */
    interface Answer {
        List<Object> answer(Call call, int index) throws Exception;
    }

    private final List<Call> calls = new ArrayList<>();
    private final List<String> events = new ArrayList<>();
    private Answer answer;
    private Node movedTo;
    boolean closed;

    FakeWire(Answer answer) {
        this.answer = answer;
    }

    synchronized void answer(Answer next) {
        this.answer = next;
    }

    synchronized List<Call> calls() {
        return new ArrayList<>(calls);
    }

    synchronized List<String> events() {
        return new ArrayList<>(events);
    }

    @Override
    public Sent send(Optional<Node> to, List<List<String>> commands, long withinMs) throws Exception {
        Answer now;
        Call call = new Call(to, commands);
        int index;
        Node node;
        synchronized (this) {
            calls.add(call);
            index = calls.size() - 1;
            now = answer;
            node = to.orElse(movedTo != null ? movedTo : PRIMARY);
            events.add("send " + (to.isPresent() ? "ask " : "") + node + " " + call.script());
        }
        return new Sent(node, now.answer(call, index));
    }

    @Override
    public synchronized void reroute(int slot, Optional<Node> to) {
        movedTo = to.orElse(null);
        events.add("reroute " + slot + " " + to.map(Node::toString).orElse("-"));
    }

    @Override
    public synchronized void reconnect() {
        events.add("reconnect");
    }

    @Override
    public synchronized void close() {
        closed = true;
        events.add("close");
    }

    // ---- Replies a server gives.

    /** The replies of a write that ran and was acknowledged: the acquire takes {@code node}. */
    static List<Object> ran(Call call, long node) {
        List<Object> replies = new ArrayList<>();
        if (call.asking()) {
            replies.add("OK");
        }
        switch (call.script()) {
            case "acquire":
                replies.add(List.of(node, -1L));
                break;
            default:
                replies.add(1L);
                break;
        }
        if (call.waits()) {
            replies.add(Long.parseLong(call.commands().get(call.commands().size() - 1).get(1)));
        }
        return replies;
    }

    /** The replies of a write the server refused with {@code text} (WAIT still answers). */
    static List<Object> refused(Call call, String text) {
        List<Object> replies = new ArrayList<>();
        if (call.asking()) {
            replies.add("OK");
        }
        replies.add(new ErrorReply(text));
        if (call.waits()) {
            replies.add(0L);
        }
        return replies;
    }
}
