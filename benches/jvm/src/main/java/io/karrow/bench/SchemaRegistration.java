package io.karrow.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Registers an Avro schema with a Confluent-compatible schema registry over its REST API. */
public final class SchemaRegistration {

    private static final ObjectMapper JSON = new ObjectMapper();

    private SchemaRegistration() {}

    /**
     * Registers {@code avroSchema} under {@code subject} ({@code POST /subjects/{s}/versions}) and
     * returns the schema id.
     *
     * @throws IOException if the registry is unreachable or refuses the schema
     */
    public static int register(String registryUrl, String subject, String avroSchema)
            throws IOException, InterruptedException {
        String base = registryUrl.replaceAll("/+$", "");
        String body = JSON.writeValueAsString(JSON.createObjectNode().put("schema", avroSchema));
        HttpRequest request =
                HttpRequest.newBuilder(
                                URI.create(base + "/subjects/" + URLEncoder.encode(subject, StandardCharsets.UTF_8) + "/versions"))
                        .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                        .timeout(Duration.ofSeconds(30))
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build();
        // HTTP/1.1: no h2c upgrade attempt, which a plain HTTP/1.1 registry need not answer.
        HttpClient http =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException(
                    "registering subject " + subject + " at " + base + " failed: HTTP " + response.statusCode() + " "
                            + response.body());
        }
        JsonNode id = JSON.readTree(response.body()).get("id");
        if (id == null || !id.canConvertToInt()) {
            throw new IOException("registry answered without an id: " + response.body());
        }
        return id.asInt();
    }
}
