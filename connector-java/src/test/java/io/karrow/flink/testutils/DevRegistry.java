package io.karrow.flink.testutils;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The karrow dev schema registry ({@code karrow registry serve}) run as a child process for tests,
 * plus a small Confluent REST client to register schemas.
 *
 * <p>The binary is taken from the system property {@code karrow.registry.binary}, else from {@code
 * ../target/release/karrow}, else {@code ../target/debug/karrow}. If the system property {@code
 * karrow.registry.url} is set, that running registry is used instead and no process is started.
 *
 * <p>A test class that needs one registry for all its tests registers {@link #perClass()} ({@code
 * @RegisterExtension static final DevRegistry registry = DevRegistry.perClass();}): it is started
 * before the class's {@code @BeforeAll} methods run and closed after its tests.
 */
public final class DevRegistry implements AutoCloseable, BeforeAllCallback, AfterAllCallback {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Process process;
    private String url;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

    private DevRegistry(Process process, String url) {
        this.process = process;
        this.url = url;
    }

    /** A registry for {@code @RegisterExtension} on a static field, started before the class's tests. */
    public static DevRegistry perClass() {
        return new DevRegistry(null, null);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        if (url != null) {
            throw new IllegalStateException("this registry is already started");
        }
        DevRegistry started = start();
        process = started.process;
        url = started.url;
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    /** Starts the dev registry (or attaches to {@code -Dkarrow.registry.url}). */
    public static DevRegistry start() throws IOException, InterruptedException {
        String external = System.getProperty("karrow.registry.url");
        if (external != null && !external.isBlank()) {
            return new DevRegistry(null, external.replaceAll("/+$", ""));
        }
        Path binary = findBinary();
        int port = freePort();
        Process process =
                new ProcessBuilder(binary.toString(), "registry", "serve", "--port", Integer.toString(port))
                        .redirectErrorStream(true)
                        .start();
        StringBuffer output = new StringBuffer();
        Thread pump =
                new Thread(
                        () -> {
                            try (BufferedReader out =
                                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                                String line;
                                while ((line = out.readLine()) != null) {
                                    output.append(line).append('\n');
                                }
                            } catch (IOException ignored) {
                                // process ended
                            }
                        },
                        "karrow-registry-output");
        pump.setDaemon(true);
        pump.start();
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly, "karrow-registry-stop"));
        String url = "http://127.0.0.1:" + port;
        try {
            waitReachable(url, process);
        } catch (IOException e) {
            process.destroyForcibly();
            throw new IOException(e.getMessage() + "; registry output:\n" + output, e);
        }
        return new DevRegistry(process, url);
    }

    private static void waitReachable(String url, Process process) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("dev registry exited with code " + process.exitValue());
            }
            try {
                client.send(HttpRequest.newBuilder(URI.create(url + "/subjects")).timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
                return;
            } catch (IOException e) {
                Thread.sleep(100);
            }
        }
        throw new IOException("dev registry did not come up at " + url);
    }

    /** Path of the {@code karrow} binary; fails with a clear message if it was not built. */
    public static Path findBinary() {
        String configured = System.getProperty("karrow.registry.binary");
        if (configured != null && Files.isExecutable(Path.of(configured))) {
            return Path.of(configured);
        }
        for (String candidate : new String[] {"../target/release/karrow", "../target/debug/karrow"}) {
            Path path = Path.of(candidate).toAbsolutePath().normalize();
            if (Files.isExecutable(path)) {
                return path;
            }
        }
        throw new IllegalStateException(
                "The karrow binary (dev schema registry) was not found: build it with `cargo build --release -p karrow-cli` "
                        + "or pass -Dkarrow.registry.binary=/path/to/karrow or -Dkarrow.registry.url=http://...");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
    }

    /** Base URL, e.g. {@code http://127.0.0.1:8081}. */
    public String url() {
        return url;
    }

    /** Registers {@code schemaJson} (Avro) under {@code subject} and returns its id. */
    public int register(String subject, String schemaJson) throws IOException, InterruptedException {
        return register(subject, null, schemaJson);
    }

    /**
     * Registers {@code schema} under {@code subject} with the given {@code schemaType} ({@code AVRO},
     * {@code JSON}, {@code PROTOBUF}; null leaves it out, which means AVRO) and returns its id.
     */
    public int register(String subject, String schemaType, String schema) throws IOException, InterruptedException {
        return register(subject, schemaType, schema, null);
    }

    /**
     * As {@link #register(String, String, String)}, with {@code references}: a JSON array of {@code
     * {"name", "subject", "version"}} (null: none).
     */
    public int register(String subject, String schemaType, String schema, String references)
            throws IOException, InterruptedException {
        // HTTP/1.1 explicitly: the JDK client otherwise sends "Upgrade: h2c", which the dev registry does not answer.
        var payload = JSON.createObjectNode();
        if (schemaType != null) {
            payload.put("schemaType", schemaType);
        }
        if (references != null) {
            payload.set("references", JSON.readTree(references));
        }
        String body = JSON.writeValueAsString(payload.put("schema", schema));
        HttpRequest request =
                HttpRequest.newBuilder(
                                URI.create(url + "/subjects/" + URLEncoder.encode(subject, StandardCharsets.UTF_8) + "/versions"))
                        .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                        .timeout(Duration.ofSeconds(30))
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("register " + subject + " failed: HTTP " + response.statusCode() + " " + response.body());
        }
        JsonNode id = JSON.readTree(response.body()).get("id");
        return id.asInt();
    }

    /**
     * The latest version of {@code subject} ({@code GET /subjects/{subject}/versions/latest}): an object
     * with {@code subject}, {@code version}, {@code id}, {@code schema} and, unless AVRO, {@code
     * schemaType}.
     */
    public JsonNode latestVersion(String subject) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(
                        url + "/subjects/" + URLEncoder.encode(subject, StandardCharsets.UTF_8) + "/versions/latest"))
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("latest version of " + subject + " failed: HTTP " + response.statusCode() + " "
                    + response.body());
        }
        return JSON.readTree(response.body());
    }

    /**
     * Freezes the registry process ({@code SIGSTOP}): its port stays open and connections are
     * accepted by the kernel, but no request is answered, as with a hung registry or a network
     * partition. Undone by {@link #resume()}.
     */
    public void suspend() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** Lets a {@link #suspend() suspended} registry answer again ({@code SIGCONT}). */
    public void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String name) throws IOException, InterruptedException {
        if (process == null) {
            throw new IllegalStateException("an external registry (-Dkarrow.registry.url) cannot be signalled");
        }
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IOException("kill -" + name + " " + process.pid() + " failed with code " + kill.exitValue());
        }
    }

    /** Whether this instance started the registry process (and so can stop or suspend it). */
    public boolean isOwnProcess() {
        return process != null;
    }

    @Override
    public void close() {
        if (process != null) {
            if (process.isAlive()) {
                try {
                    resume(); // a stopped process does not act on SIGTERM until continued
                } catch (IOException e) {
                    // destroyForcibly below still ends it
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            process.destroy();
            try {
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
