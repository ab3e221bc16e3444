package io.echomq.emqid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One node, one mint state, across runtimes (SPEC.md §5.1): a JVM minting through
 * {@link Mint#mint} with {@code EMQ_NODE} set and the {@code emq-id} CLI (the core linked
 * natively) on the same node and claim directory exclude each other whichever holds
 * first, the refusal naming the holder's pid; minting at once, one is refused and no id
 * repeats. The negative control gives each its own claim directory (the claim blinded):
 * the same run then repeats ids, so the duplicate count can fail.
 *
 * <p>{@code EMQ_CLI} names the CLI binary ({@code cargo xtask test} builds it and sets it).
 */
class OneNodeTest {
    private static final String NODE = "901";

    /** The JVM minter: {@code args[0]} ids, one a line; a refusal's message on stderr, exit 2. */
    static final class Child {
        private Child() {}

        /**
         * Mints through the process-wide minter of {@code EMQ_NODE}.
         *
         * @param args the number of ids
         * @throws IOException when stdout is closed
         */
        public static void main(String[] args) throws IOException {
            long count = Long.parseLong(args[0]);
            Writer out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.US_ASCII), 1 << 16);
            try {
                for (long i = 0; i < count; i++) {
                    out.write(Mint.mint("JOB"));
                    out.write('\n');
                    if (i == 0) {
                        out.flush(); // the first id says the node is held
                    }
                }
            } catch (EmqIdException refused) {
                System.err.println(refused.getMessage());
                System.exit(2);
            }
            out.flush();
        }
    }

    /** A process's lines and exit status, read to its end. */
    record Ran(int status, List<String> ids, String stderr) {}

    private static String cli() {
        String cli = System.getenv("EMQ_CLI");
        assertNotNull(cli, "EMQ_CLI must name the emq-id CLI (cargo xtask test sets it)");
        return cli;
    }

    /** A minter of {@code count} ids on NODE with its claims in {@code dir}: this JVM's java, or the CLI. */
    private static Process start(boolean jvm, long count, Path dir) throws IOException {
        List<String> command = new ArrayList<>();
        if (jvm) {
            command.add(ProcessHandle.current().info().command().orElseThrow());
            command.add("--enable-native-access=ALL-UNNAMED");
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(Child.class.getName());
            command.add(Long.toString(count));
        } else {
            command.addAll(List.of(cli(), "mint", "JOB", "-n", Long.toString(count)));
        }
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("EMQ_NODE", NODE);
        builder.environment().put("EMQ_NODE_DIR", dir.toString());
        return builder.start();
    }

    private static String name(boolean jvm) {
        return jvm ? "JVM" : "CLI";
    }

    private static BufferedReader reader(InputStream in) {
        return new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
    }

    /** Every line left in {@code reader}, after {@code first} ones already read, on another thread. */
    private static CompletableFuture<List<String>> lines(BufferedReader reader, List<String> first) {
        return CompletableFuture.supplyAsync(() -> {
            try (reader) {
                List<String> all = new ArrayList<>(first);
                reader.lines().forEach(all::add);
                return all;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** Waits for {@code process}, its outputs drained at once so it never blocks on a pipe. */
    private static CompletableFuture<Ran> ran(Process process, BufferedReader stdout, List<String> first) {
        CompletableFuture<List<String>> out = lines(stdout, first);
        CompletableFuture<List<String>> err = lines(reader(process.getErrorStream()), List.of());
        return CompletableFuture.supplyAsync(() -> {
            try {
                assertTrue(process.waitFor(120, TimeUnit.SECONDS), "a minter ran past two minutes");
                return new Ran(process.exitValue(), out.join(), String.join("\n", err.join()));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static CompletableFuture<Ran> ran(Process process) {
        return ran(process, reader(process.getInputStream()), List.of());
    }

    /** A holder: minting without end into a pipe read once, so it blocks holding the node. */
    private static Process holder(boolean jvm, Path dir) throws IOException {
        Process held = start(jvm, Long.MAX_VALUE >> 1, dir);
        String first = reader(held.getInputStream()).readLine();
        assertTrue(first != null && first.startsWith("JOB"), name(jvm) + " holder minted nothing: " + first);
        return held;
    }

    @Test
    void aSecondProcessOnAHeldNodeIsRefusedNamingItsHolderWhicheverRuntimeHolds(@TempDir Path dir) throws Exception {
        for (boolean jvmHolds : new boolean[] {true, false}) {
            Process held = holder(jvmHolds, dir);
            try {
                Ran second = ran(start(!jvmHolds, 10, dir)).get(120, TimeUnit.SECONDS);
                String gate = jvmHolds ? "error: node: " : "node: "; // the CLI's line, EmqIdException's message
                assertEquals(2, second.status(), second.stderr());
                assertEquals(List.of(), second.ids());
                assertTrue(second.stderr().startsWith(gate), second.stderr());
                assertTrue(second.stderr().contains("pid " + held.pid()), second.stderr());
                System.out.printf(
                        "jvm: a %s process on node %s, held by a %s one (pid %d), was refused naming it: %s%n",
                        name(!jvmHolds), NODE, name(jvmHolds), held.pid(), second.stderr().trim());
            } finally {
                held.destroyForcibly().waitFor();
            }
        }
    }

    /**
     * Both at once: the JVM mints (its first id out, so it holds) while the CLI starts; in one
     * claim directory the CLI is refused and no id repeats; in one each (blinded), ids repeat.
     */
    @Test
    void mintingAtOnceOneIsRefusedAndNoIdRepeatsUnlessTheClaimIsBlind(@TempDir Path dir) throws Exception {
        for (boolean blind : new boolean[] {false, true}) {
            Path jvmDir = dir.resolve(blind ? "blind-jvm" : "one");
            Path cliDir = dir.resolve(blind ? "blind-cli" : "one");
            Process jvm = start(true, 400_000, jvmDir);
            // The JVM's first id out means its claim is taken: then the CLI starts, while it mints.
            BufferedReader jvmOut = reader(jvm.getInputStream());
            String first = jvmOut.readLine();
            assertTrue(first != null && first.startsWith("JOB"), "the JVM minted nothing: " + first);
            CompletableFuture<Ran> jvmRan = ran(jvm, jvmOut, List.of(first));
            Ran cli = ran(start(false, 400_000, cliDir)).get(120, TimeUnit.SECONDS);
            Ran minted = jvmRan.get(120, TimeUnit.SECONDS);
            List<Ran> both = List.of(minted, cli);
            long refused = both.stream().filter(r -> r.status() != 0).count();
            List<String> all = both.stream().flatMap(r -> r.ids().stream()).toList();
            int duplicates = all.size() - new HashSet<>(all).size();
            System.out.printf(
                    "jvm: a JVM and the CLI on node %s at once, %s: %d ids, %d refused, %d duplicates%n",
                    NODE, blind ? "each its own claim directory (negative control)" : "one claim directory",
                    all.size(), refused, duplicates);
            if (blind) {
                assertNotEquals(0, duplicates, "the blinded claim found no duplicate: the count could not fail");
            } else {
                assertEquals(1, refused, "one claim directory: both minted");
                assertEquals(0, duplicates);
            }
        }
    }
}
