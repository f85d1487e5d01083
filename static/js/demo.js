// The hand-over page of a table opened from the home page (app/player/demo.py, a
// guided demo or a quick start; app/player/online.py, an online match): keep the
// seat token the POST's answer carried, as a join does (cg.seat.<CODE>), and an
// online match's resume secret (cg.online.<CODE>), then open the next page
// (data-next: the phone page, which resumes the seat, or the match's link page).
// location.replace: Back does not return here.
const box = document.getElementById("demo-start");
const { code, token, secret } = box.dataset;
try {
  localStorage.setItem(`cg.seat.${code}`, token);
  localStorage.removeItem(`cg.removed.${code}`);
  if (secret) localStorage.setItem(`cg.online.${code}`, secret);
} catch (err) {
  // Private browsing without storage: the phone page asks for a name instead.
}
box.removeAttribute("data-token");
box.removeAttribute("data-secret");
location.replace(box.dataset.next || `/join/${encodeURIComponent(code)}`);
