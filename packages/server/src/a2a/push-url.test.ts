/** Webhook URLs: http(s) only, no credentials, no loopback or private address unless allowed. */
import { describe, expect, it } from "vitest";
import { isPublicAddress } from "./push-address.ts";
import { checkPushUrl } from "./push-url.ts";

const isInternalAddress = (address: string) => !isPublicAddress(address);

describe("push notification URLs", () => {
  it.each([
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "0.0.0.0",
    "::1",
    "fd00::1",
    "fe80::1",
    "::ffff:127.0.0.1",
    "100.64.0.1",
  ])("%s is internal", (address) => expect(isInternalAddress(address)).toBe(true));

  it.each(["8.8.8.8", "1.1.1.1", "2606:4700::1111"])("%s is not", (address) =>
    expect(isInternalAddress(address)).toBe(false),
  );

  it("refuses loopback, private ranges and names resolving to them by default; allows them when told", async () => {
    await expect(checkPushUrl("http://127.0.0.1:8080/hook", {})).rejects.toThrow(/loopback, private/);
    await expect(checkPushUrl("http://[::1]/hook", {})).rejects.toThrow(/loopback, private/);
    await expect(checkPushUrl("http://localhost/hook", {})).rejects.toThrow(/loopback, private|does not resolve/);
    await expect(checkPushUrl("http://169.254.169.254/latest", {})).rejects.toThrow(/loopback, private/);
    expect((await checkPushUrl("http://127.0.0.1:8080/hook", { allowPrivateNetworks: true })).url.port).toBe("8080");
  });

  it("refuses other schemes, credentials in the URL, hosts off the allow-list", async () => {
    await expect(checkPushUrl("file:///etc/passwd", {})).rejects.toThrow(/http or https/);
    await expect(checkPushUrl("not a url", {})).rejects.toThrow(/not a valid URL/);
    await expect(checkPushUrl("https://user:pw@8.8.8.8/", {})).rejects.toThrow(/credentials/);
    await expect(checkPushUrl("https://8.8.8.8/", { allowedHosts: ["hooks.example.com"] })).rejects.toThrow(
      /allow-list/,
    );
    expect((await checkPushUrl("https://8.8.8.8/h", { allowedHosts: ["8.8.8.8"] })).url.href).toBe("https://8.8.8.8/h");
  });
});
