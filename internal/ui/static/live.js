// Live updates of a running run: the server streams its status and stage
// table as server-sent events; the page swaps them in, and reloads once
// the run is done so every section shows the final record.
(function () {
  var el = document.getElementById("live");
  if (!el || !window.EventSource) { return; }
  var es = new EventSource("/runs/" + encodeURIComponent(el.dataset.run) + "/live");
  es.onmessage = function (e) {
    var m = JSON.parse(e.data);
    var status = document.getElementById("status");
    if (status) { status.textContent = m.status; }
    var stages = document.getElementById("stages");
    if (stages) { stages.innerHTML = m.stages; }
  };
  es.addEventListener("done", function () { es.close(); window.location.reload(); });
})();
