// The guided demo's hand-over page (app/player/demo.py): keep the seat token the
// POST's answer carried, as a join does (cg.seat.<CODE>), and open the phone
// page, which resumes the seat. location.replace: Back does not return here.
const box = document.getElementById("demo-start");
const { code, token } = box.dataset;
try {
  localStorage.setItem(`cg.seat.${code}`, token);
  localStorage.removeItem(`cg.removed.${code}`);
} catch (err) {
  // Private browsing without storage: the phone page asks for a name instead.
}
box.removeAttribute("data-token");
location.replace(`/join/${encodeURIComponent(code)}`);
