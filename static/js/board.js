// The projected board: public information only, updated live.
import { connect, request } from "./net.js";
import { banner, render } from "./table.js";

const app = document.getElementById("app");
const code = app.dataset.code;
const root = document.getElementById("game-root");
const socket = connect();

socket.on("connect", () => request(socket, "watch", { code, role: "board" }));
socket.on("view", (payload) => {
  banner(document.getElementById("banner"), payload);
  render(root, payload, { role: "board" });
});
